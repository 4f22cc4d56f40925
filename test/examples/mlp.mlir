// The contract example mlp.mlir lowered stage by stage through relax-to-vm.
// RUN: relax-opt %examples/mlp.mlir -p relax-to-vm --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: relax-opt %examples/mlp.mlir -p relax-to-vm | relax-opt | filecheck %s --check-prefix=VM

// CHECK-LABEL: IR Dump After relax-legalize-ops
// CHECK:         tir.prim_func @matmul(%x0: !tir.buffer<[n, 784], f32>, %x1: !tir.buffer<[784, 128], f32>, %out: !tir.buffer<[n, 128], f32>)
// CHECK:         %0 = relax.call_tir @matmul(%x, %w1)
// CHECK-NEXT:    %1 = relax.call_tir @add(%0, %b1)
// CHECK-NEXT:    %2 = relax.call_tir @relu(%1)
// CHECK-NEXT:    %3 = relax.call_tir @matmul1(%2, %w2)
// CHECK-NEXT:    %4 = relax.call_tir @add1(%3, %b2)
// CHECK-NEXT:    %5 = relax.call_tir @softmax(%4)

// The softmax reduces the second matmul's output, its only reader: they fuse.
// CHECK-LABEL: IR Dump After relax-fuse-ops
// CHECK:         relax.func private @fused_matmul_add_relu({{.*}}) -> !relax.tensor<[n, 128], f32> attributes {primitive}
// CHECK:         relax.func private @fused_matmul1_add1_softmax({{.*}}) -> !relax.tensor<[n, 10], f32> attributes {primitive}
// CHECK:         relax.call @fused_matmul_add_relu(%x, %w1, %b1)

// CHECK-LABEL: IR Dump After relax-fuse-tir
// CHECK:         tir.prim_func @fused_matmul_add_relu(
// CHECK:         %0 = relax.call_tir @fused_matmul_add_relu(%x, %w1, %b1)
// CHECK-NEXT:    %1 = relax.call_tir @fused_matmul1_add1_softmax(%0, %w2, %b2)

// CHECK-LABEL: IR Dump After relax-to-non-dataflow
// CHECK-NOT:     relax.dataflow
// CHECK:         relax.return %out

// CHECK-LABEL: IR Dump After relax-call-tir-rewrite
// CHECK:         %0 = relax.builtin.alloc_tensor : !relax.tensor<[n, 128], f32>
// CHECK-NEXT:    relax.call_dps @fused_matmul_add_relu(%x, %w1, %b1, %0)

// CHECK-LABEL: IR Dump After relax-vm-memory-lower
// CHECK:         %0 = vm.alloc_tensor_direct shape [n, 128] {dtype = "float32"}

// CHECK-LABEL: IR Dump After relax-vm-shape-lower
// CHECK:         %shape_heap = vm.alloc_shape_heap 1 : !relax.tensor<[1], i64>
// CHECK:         vm.match_shape %x, %shape_heap [store h0 "n", equal 784 "784"] "main: parameter 'x'"
// CHECK:         %{{.*}} = vm.alloc_tensor_direct shape [h0, 128] {dtype = "float32"}

// The argument types prove each kernel's signature: the VM skips the kernels' checks.
// CHECK-LABEL: IR Dump After relax-codegen-vm
// CHECK:         vm.func @main(%x, %w1, %b1, %w2, %b2) {
// CHECK:         %[[K:.*]] = vm.func_ref "fused_matmul_add_relu"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[K]], %x, %w1, %b1, %{{.*}})
// CHECK:         vm.ret %out

// The vm IR verifies and re-parses; nothing of relax is left but the kernels.
// VM-NOT:      relax.
// VM:          vm.func @main
// VM-NOT:      relax.
