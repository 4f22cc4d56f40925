// RUN: relax-opt %s -p relax-codegen-vm | filecheck %s

tir.prim_func @k(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}
tir.prim_func @dyn(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) sym [m] {
}

// Builtins become vm.call of vm.builtin.* with immediates and constants; call_dps
// calls the kernel (its unchecked entry when marked {proven};
// call_tir_dyn with a heap-built shape for symbolic integers; a shape built once is
// reused); relax.if becomes vm.if / vm.goto with a join block.
// CHECK-LABEL: vm.func @main(%c, %x) {
// CHECK-NEXT:    %0 = vm.imm 2
// CHECK-NEXT:    %shape_heap = vm.call "vm.builtin.alloc_shape_heap"(%0) -> !vm.ref
// CHECK-NEXT:    %1 = vm.const [[1 : i64, 0 : i64, "n"]]
// CHECK-NEXT:    %2 = vm.const "main: parameter 'x'"
// CHECK-NEXT:    vm.call "vm.builtin.match_shape"(%x, %shape_heap, %1, %2)
// CHECK-NEXT:    %3 = vm.const [[1 : i64, 1 : i64]]
// CHECK-NEXT:    %4 = vm.call "vm.builtin.make_shape"(%shape_heap, %3) -> !vm.ref
// CHECK-NEXT:    %5 = vm.const "uint8"
// CHECK-NEXT:    %st = vm.call "vm.builtin.alloc_storage"(%4, %5) -> !vm.ref
// CHECK:         %[[C:.*]] = vm.const {{\[}}[1 : i64, 0 : i64]]
// CHECK-NEXT:    %[[SH:.*]] = vm.call "vm.builtin.make_shape"(%shape_heap, %[[C]]) -> !vm.ref
// CHECK:         %t = vm.call "vm.builtin.alloc_tensor"(%st, %{{.*}}, %[[SH]], %{{.*}}) -> !vm.ref
// CHECK-NEXT:    %[[K:.*]] = vm.func_ref "k"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[K]], %x, %t)
// CHECK-NEXT:    %[[F:.*]] = vm.func_ref "dyn"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_dyn"(%[[F]], %x, %t, %[[SH]])
// CHECK-NEXT:    %[[A:.*]] = vm.const ["dict", [["axis", ["int", "i64", -1 : i64]]]]
// CHECK-NEXT:    %p = vm.call "relax.op.softmax"(%t, %[[A]]) -> !vm.ref
// CHECK-NEXT:    %[[D:.*]] = vm.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %tu = vm.call "vm.builtin.make_tuple"(%p, %[[D]]) -> !vm.ref
// CHECK-NEXT:    %[[I:.*]] = vm.imm 1
// CHECK-NEXT:    %e = vm.call "vm.builtin.tuple_getitem"(%tu, %[[I]]) -> !vm.ref
// CHECK-NEXT:    vm.if %c, ^bb1, ^bb2
// CHECK-NEXT:  ^bb1:
// CHECK-NEXT:    vm.goto ^bb3(%t)
// CHECK-NEXT:  ^bb2:
// CHECK-NEXT:    %n = vm.call "vm.builtin.shape_of"(%x) -> !vm.ref
// CHECK-NEXT:    vm.goto ^bb3(%p)
// CHECK-NEXT:  ^bb3(%r: !vm.ref):
// CHECK-NEXT:    vm.ret %r
relax.func @main(%c: !relax.tensor<[], i1>, %x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %shape_heap = vm.alloc_shape_heap 2 : !relax.tensor<[2], i64>
  %0 = vm.match_shape %x, %shape_heap [store h0 "n"] "main: parameter 'x'" : !relax.tensor<[n], f32>, !relax.tensor<[2], i64> -> !relax.tensor<[n], f32>
  %st = vm.alloc_storage [h1] {dtype = "uint8"} : !relax.object
  %t = vm.alloc_tensor %st [0] shape [h0] {dtype = "float32"} : !relax.tensor<[n], f32>
  relax.call_dps @k(%x, %t) {proven} : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.call_dps @dyn(%x, %t) sym [h0] : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %p = relax.call_packed "relax.op.softmax"(%t) {pure, op_attrs = {axis = -1 : i64}} : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %d = relax.const dense<[1.0, 2.0]> : !relax.tensor<[2], f32>
  %tu = relax.tuple %p, %d : (!relax.tensor<[n], f32>, !relax.tensor<[2], f32>)
  %e = relax.get_item %tu[1] : (!relax.tuple<!relax.tensor<[n], f32>, !relax.tensor<[2], f32>>)
  %r = relax.if %c -> !relax.tensor<[n], f32> {
    relax.yield %t : !relax.tensor<[n], f32>
  } else {
    %n = relax.shape_of %x : (!relax.tensor<[n], f32>)
    relax.yield %p : !relax.tensor<[n], f32>
  }
  relax.return %r : !relax.tensor<[n], f32>
}

// Killing a storage gives its memory back (vm.builtin.free_storage: the VM's buffer
// pool); killing a tensor only ends its lifetime (vm.builtin.free_tensor).
// CHECK-LABEL: vm.func @kills(%x) {
// CHECK:         %st = vm.call "vm.builtin.alloc_storage"
// CHECK:         %t = vm.call "vm.builtin.alloc_tensor"(%st,
// CHECK:         %d = vm.call "vm.builtin.alloc_tensor_direct"
// CHECK-NEXT:    vm.call "vm.builtin.free_tensor"(%d)
// CHECK-NEXT:    vm.call "vm.builtin.free_storage"(%st)
relax.func @kills(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  %st = vm.alloc_storage [16] {dtype = "uint8"} : !relax.object
  %t = vm.alloc_tensor %st [0] shape [4] {dtype = "float32"} : !relax.tensor<[4], f32>
  relax.call_dps @k(%x, %t) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %d = vm.alloc_tensor_direct shape [4] {dtype = "float32"} : !relax.tensor<[4], f32>
  vm.kill %d
  vm.kill %st
  relax.return %x : !relax.tensor<[4], f32>
}

// A {proven} call whose types do not prove the signature (a rank only; a size that
// differs from the one the first buffer binds) and an unmarked one keep the checked
// call; a marked one whose types prove it calls the unchecked entry.
// CHECK-LABEL: vm.func @unproven(%x, %y, %z) {
// CHECK-NEXT:    vm.call "k"(%x, %y)
// CHECK-NEXT:    vm.call "k"(%y, %z)
// CHECK-NEXT:    vm.call "k"(%y, %y)
// CHECK-NEXT:    %[[K:.*]] = vm.func_ref "k"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[K]], %y, %y)
relax.func @unproven(%x: !relax.tensor<ndim=1, f32>, %y: !relax.tensor<[4], f32>, %z: !relax.tensor<[5], f32>) -> !relax.tensor<[4], f32> {
  relax.call_dps @k(%x, %y) {proven} : (!relax.tensor<ndim=1, f32>, !relax.tensor<[4], f32>)
  relax.call_dps @k(%y, %z) {proven} : (!relax.tensor<[4], f32>, !relax.tensor<[5], f32>)
  relax.call_dps @k(%y, %y) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  relax.call_dps @k(%y, %y) {proven} : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  relax.return %y : !relax.tensor<[4], f32>
}
