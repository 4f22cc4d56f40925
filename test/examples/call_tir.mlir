// The contract example call_tir.mlir lowered stage by stage through relax-to-vm.
// RUN: relax-opt %examples/call_tir.mlir -p relax-to-vm --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: relax-opt %examples/call_tir.mlir -p relax-to-vm | relax-opt | filecheck %s --check-prefix=VM

// CHECK-LABEL: IR Dump After relax-legalize-ops
// CHECK:         %lv1 = relax.call_tir @matmul(%x, %lv0)
// CHECK-NEXT:    %lv2 = relax.call_tir @flatten(%lv1)
// CHECK-NEXT:    %gv = relax.call_tir @tir_exp(%lv2)
// CHECK:         relax.call_packed "custom_inplace_update"(%gv0)

// The user's tir_exp fuses with the flatten before it, and the matmul whose only
// reader is that group joins it (relax-fuse-ops' second phase).
// CHECK-LABEL: IR Dump After relax-fuse-tir
// CHECK:         %gv = relax.call_tir @fused_matmul_flatten_tir_exp(%x, %lv0)

// CHECK-LABEL: IR Dump After relax-call-tir-rewrite
// CHECK:         %gv = relax.builtin.alloc_tensor : !relax.tensor<[m * n], f32>
// CHECK-NEXT:    relax.call_dps @fused_matmul_flatten_tir_exp(%x, %lv0, %gv)

// match_shape binds m (store) and checks k against x's k (check).
// CHECK-LABEL: IR Dump After relax-vm-shape-lower
// CHECK:         vm.match_shape %x, %shape_heap [store h0 "n", store h1 "k"] "main: parameter 'x'"
// CHECK:         %lv0 = vm.match_shape %w, %shape_heap [check h1 "k", store h2 "m"] "main: match_shape [k, m]"
// CHECK-NEXT:    relax.call_dps @main_shape0(%shape_heap) sym [h2, h0]
// CHECK:         %gv = vm.alloc_tensor_direct shape [h3] {dtype = "float32"} : !relax.tensor<[m * n], f32>

// CHECK-LABEL: IR Dump After relax-codegen-vm
// CHECK:         vm.call "vm.builtin.call_tir_dyn"
// CHECK:         vm.call "custom_inplace_update"(%gv)
// CHECK-NEXT:    vm.ret %gv

// VM:          tir.prim_func @main_shape0(%H: !tir.buffer<[4], i64>) sym [m, n]
// VM:          vm.func @main(%x, %w)
// VM-NOT:      relax.
