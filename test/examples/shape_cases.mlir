// The contract example shape_cases.mlir lowered stage by stage through relax-to-vm.
// RUN: relax-opt %examples/shape_cases.mlir -p relax-to-vm --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: relax-opt %examples/shape_cases.mlir -p relax-to-vm | relax-opt | filecheck %s --check-prefix=VM

// The data-dependent unique goes to the safety net (a packed call that allocates);
// reshape and flatten become kernels.
// CHECK-LABEL: IR Dump After relax-legalize-ops
// CHECK:         %lv0 = relax.call_tir @reshape(%x)
// CHECK-NEXT:    %lv1 = relax.call_tir @flatten(%lv0)
// CHECK-NEXT:    %lv2 = relax.call_packed "relax.op.unique"(%lv1) {pure} : (!relax.tensor<[n * 4], f32>) -> !relax.tensor<ndim=1, f32>
// CHECK-NEXT:    %lv3 = relax.match_shape %lv2 [m]
// CHECK-NEXT:    %gv = relax.call_tir @exp(%lv3)

// match_shape of the unique result binds m at run time.
// CHECK-LABEL: IR Dump After relax-vm-shape-lower
// CHECK:         vm.match_shape %x, %shape_heap [store h0 "n", equal 2 "2", equal 2 "2"] "main: parameter 'x'"
// CHECK:         %lv3 = vm.match_shape %lv2, %shape_heap [store h{{[0-9]}} "m"] "main: match_shape [m]"
// CHECK:         %gv = vm.alloc_tensor_direct shape [h{{[0-9]}}] {dtype = "float32"}

// CHECK-LABEL: IR Dump After relax-codegen-vm
// CHECK:         %lv2 = vm.call "relax.op.unique"(%lv1) -> !vm.ref
// CHECK:         vm.ret %gv

// VM:          vm.func @main(%x)
// VM-NOT:      relax.func
