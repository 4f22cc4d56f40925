// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Verifier rules of the vm dialect.

vm.func @main(%c) {
  // expected-error @+1 {{the true successor of vm.if must be the next block}}
  vm.if %c, ^bb2, ^bb1
^bb1:
  vm.ret %c
^bb2:
  vm.ret %c
}

// -----

vm.func @main(%c) {
  // expected-error @+1 {{vm.goto passes 0 values to a block of 1}}
  vm.goto ^bb1
^bb1(%x: !vm.ref):
  vm.ret %x
}

// -----

// expected-error @+1 {{every block of a vm.func ends with vm.ret, vm.if or vm.goto}}
vm.func @main(%c) {
  %0 = vm.imm 1
}

// -----

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %h = vm.alloc_shape_heap 1 : !relax.tensor<[1], i64>
  // expected-error @+1 {{shape [n] is not lowered to heap slots and integers}}
  %s = vm.make_shape %h [n] : !relax.shape<[n]>
  relax.return %x : !relax.tensor<[n], f32>
}
