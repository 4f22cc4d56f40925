// RUN: relax-opt %s --split-input-file -p relax-to-vm 2>&1 | filecheck %s
// Hostile input (issue 15) through relax-to-vm: what once ended in an internal error
// compiles, or is a located error (diagnostics come before the output).

// bf16 compiles (once refused: numpy has no bf16; ml_dtypes' is used now).
// CHECK-LABEL: tir.prim_func @add(%x0: !tir.buffer<[n], bf16>, %x1: !tir.buffer<[n], bf16>, %out_bf16: !tir.buffer<[n], bf16>)
// CHECK:         arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: vm.func @bf16(%x)
relax.func @bf16(%x: !relax.tensor<[n], bf16>) -> !relax.tensor<[n], bf16> {
  %y = relax.add %x, %x : (!relax.tensor<[n], bf16>, !relax.tensor<[n], bf16>) -> !relax.tensor<[n], bf16>
  relax.return %y : !relax.tensor<[n], bf16>
}

// -----

// An empty loop body is a loop that does nothing (relax-to-vm drops it).
// CHECK-LABEL: tir.prim_func @empty_loop_body(%X: !tir.buffer<[n], f32>) {
// CHECK-NEXT:  }
tir.prim_func @empty_loop_body(%X: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
  }
}

// -----

// A numbered parameter has no name (relax-run calls it arg0).
// CHECK-LABEL: vm.func @numbered(%0) {
// CHECK-NEXT:    vm.ret %0
vm.func @numbered(%0) {
  vm.ret %0
}

// -----

// A shape value may hold -1 (reshape's inferred entry): it compiles to a constant shape.
// CHECK-LABEL: vm.func @minus_one(%x) {
// CHECK:         %[[P:.*]] = vm.const {{\[}}[0 : i64, -1 : i64]]
// CHECK-NEXT:    %s = vm.call "vm.builtin.make_shape"(%shape_heap, %[[P]]) -> !vm.ref
// CHECK-NEXT:    vm.ret %s
relax.func @minus_one(%x: !relax.tensor<[4], f32>) -> !relax.shape<[-1]> {
  %s = relax.shape [-1] : !relax.shape<[-1]>
  relax.return %s : !relax.shape<[-1]>
}

// -----

// A splat constant stays one value: dense<0.0> of 2**30 elements compiles in bytes.
// CHECK-LABEL: vm.func @big_splat() {
// CHECK:         vm.const dense<0.000000e+00> : tensor<1073741824xf32>
relax.func @big_splat() -> !relax.tensor<[1073741824], f32> {
  %c = relax.const dense<0.0> : !relax.tensor<[1073741824], f32>
  relax.return %c : !relax.tensor<[1073741824], f32>
}

// -----

// A reduction of a splat of 2**40 elements is not folded at compile time (folding
// would add them all up); the kernel does it when the program runs.
// CHECK-LABEL: vm.func @huge_splat_sum() {
// CHECK:         %c = vm.const dense<1.500000e+00> : tensor<1099511627776xf32>
// CHECK:         %[[K:.*]] = vm.func_ref "sum"
// CHECK-NEXT:    vm.call "vm.builtin.call_tir_unchecked"(%[[K]], %c, %s)
relax.func @huge_splat_sum() -> !relax.tensor<[], f32> {
  %c = relax.const dense<1.5> : !relax.tensor<[1099511627776], f32>
  %s = relax.sum %c : (!relax.tensor<[1099511627776], f32>) -> !relax.tensor<[], f32>
  relax.return %s : !relax.tensor<[], f32>
}
