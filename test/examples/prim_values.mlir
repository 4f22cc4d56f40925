// The contract example prim_values.mlir lowered stage by stage through relax-to-vm.
// RUN: relax-opt %examples/prim_values.mlir -p relax-to-vm --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: relax-opt %examples/prim_values.mlir -p relax-to-vm | relax-opt | filecheck %s --check-prefix=VM

// arange of prim values keeps its symbolic length and becomes a kernel: the output
// buffer binds the variable, so no sym argument is needed.
// CHECK-LABEL: IR Dump After relax-legalize-ops
// CHECK:         tir.prim_func @arange(%out: !tir.buffer<[i], i64>) {
// CHECK:         tir.prim_func @arange1(%out: !tir.buffer<[n], i64>) {
// CHECK:         %seq = relax.call_tir @arange() : () -> !relax.tensor<[i], i64>
// CHECK:         %rows = relax.call_tir @arange1() : () -> !relax.tensor<[n], i64>

// The prim parameter is checked to be a non-negative integer and binds i in the heap;
// the prim values only the kernels used are gone.
// CHECK-LABEL: IR Dump After relax-vm-shape-lower
// CHECK:         vm.match_prim %i, %shape_heap [store h0 "i"] "main: parameter 'i'"
// CHECK:         vm.match_shape %x, %shape_heap [store h1 "n", equal 3 "3"] "main: parameter 'x'"
// CHECK-NOT:     prim_value
// CHECK:         %seq = vm.alloc_tensor_direct shape [h0] {dtype = "int64"}
// CHECK-NEXT:    relax.call_dps @arange(%seq)

// VM:          vm.func @main(%i, %x)
// VM:            vm.call "vm.builtin.match_prim"(%i, %shape_heap, {{.*}})
// VM:            %[[K:.*]] = vm.func_ref "arange"
// VM-NEXT:       vm.call "vm.builtin.call_tir_unchecked"(%[[K]], %seq)
// VM-NOT:      relax.func
