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

// -----

// SSA dominance (xDSL does not check it): a register read before it is written.
vm.func @main(%x) {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %z = vm.call "vm.builtin.make_shape"(%y, %x) -> !vm.ref
  %y = vm.imm 1
  vm.ret %z
}

// -----

// A value of one branch is not defined on the other path into the join block.
vm.func @main(%c) {
  vm.if %c, ^bb1, ^bb2
^bb1:
  %a = vm.imm 1
  vm.goto ^bb3
^bb2:
  vm.goto ^bb3
^bb3:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  vm.ret %a
}

// -----

// A value of a block that dominates the use is fine; an unreachable block is not
// checked (as in MLIR): no diagnostic.
vm.func @main(%c) {
  %a = vm.imm 1
  vm.if %c, ^bb1, ^bb2
^bb1:
  vm.goto ^bb3
^bb2:
  vm.goto ^bb3
^bb3:
  vm.ret %a
^bb4:
  vm.ret %b
^bb5:
  %b = vm.imm 2
  vm.goto ^bb4
}

// -----

// A join block that an unreachable block also jumps to is still dominated by the entry
// (unreachable predecessors do not count): no diagnostic.
vm.func @main(%c) {
  %a = vm.imm 1
  vm.if %c, ^bb1, ^bb2
^bb1:
  vm.goto ^bb3
^bb2:
  vm.goto ^bb3
^bb3:
  vm.ret %a
^bb4:
  vm.goto ^bb3
}

// -----

vm.func @main(%x) {
  // expected-error @+1 {{a vm.call result is a !vm.ref}}
  %r = vm.call "vm.builtin.print"(%x) -> i32
  vm.ret %x
}

// -----

relax.func @main(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{vm.alloc_shape_heap takes a non-negative size}}
  %h = vm.alloc_shape_heap -1 : !relax.tensor<[1], i64>
  relax.return %x : !relax.tensor<[n], f32>
}
