// The contract example control_flow.mlir lowered stage by stage through relax-to-vm.
// RUN: relax-opt %examples/control_flow.mlir -p relax-to-vm --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: relax-opt %examples/control_flow.mlir -p relax-to-vm | relax-opt | filecheck %s --check-prefix=VM

// CHECK-LABEL: IR Dump After relax-legalize-ops
// CHECK:         %r = relax.if %c -> !relax.tensor<[n], f32> {
// CHECK-NEXT:      %a = relax.call_tir @exp(%x)
// CHECK:         } else {
// CHECK-NEXT:      %b = relax.call_tir @negative(%x)

// CHECK-LABEL: IR Dump After relax-vm-memory-lower
// CHECK:           %a = vm.alloc_tensor_direct shape [n] {dtype = "float32"}

// CHECK-LABEL: IR Dump After relax-vm-shape-lower
// CHECK:         vm.check_tensor %c {ndim = 0 : i64, dtype = "bool", context = "main: parameter 'c'"}
// CHECK:         vm.match_shape %x, %shape_heap [store h0 "n"] "main: parameter 'x'"
// CHECK:           %a = vm.alloc_tensor_direct shape [h0]

// relax.if becomes vm.if into the then block, a goto to the join, and the else block.
// CHECK-LABEL: IR Dump After relax-codegen-vm
// CHECK:         vm.if %c, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK:         %[[E:.*]] = vm.func_ref "exp"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[E]], %x, %a)
// CHECK-NEXT:    vm.goto ^bb3(%a)
// CHECK-NEXT:  ^bb2:
// CHECK:         %[[N:.*]] = vm.func_ref "negative"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[N]], %x, %b)
// CHECK-NEXT:    vm.goto ^bb3(%b)
// CHECK-NEXT:  ^bb3(%r: !vm.ref):
// CHECK-NEXT:    vm.ret %r

// VM:          vm.func @main(%c, %x)
// VM-NOT:      relax.
