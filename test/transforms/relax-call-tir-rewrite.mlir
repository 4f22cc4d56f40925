// RUN: relax-opt %s --split-input-file -p relax-call-tir-rewrite | filecheck %s

tir.prim_func @k(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// The output is allocated from the declared result type and passed last. The types
// prove the kernel's signature: the call is marked {proven} (the VM skips the kernel's
// checks); an argument of unknown shape leaves the call to the kernel's checks.
// CHECK-LABEL: relax.func @single
// CHECK-NEXT:    %y = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @k(%x, %y) {proven} : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
// CHECK-NEXT:    %z = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @k(%u, %z) : (!relax.tensor<ndim=1, f32>, !relax.tensor<[n], f32>)
// CHECK-NEXT:    relax.return %y : !relax.tensor<[n], f32>
relax.func @single(%x: !relax.tensor<[n], f32>, %u: !relax.tensor<ndim=1, f32>) -> !relax.tensor<[n], f32> {
  %y = relax.call_tir @k(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %z = relax.call_tir @k(%u) : (!relax.tensor<ndim=1, f32>) -> !relax.tensor<[n], f32>
  relax.return %y : !relax.tensor<[n], f32>
}

// -----

tir.prim_func @split(%A: !tir.buffer<[n * 2], f32>, %B: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
}
tir.prim_func @dyn(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[2 * floordiv(m, 2)], f32>) sym [m] {
}

// A tuple result allocates each element and rebuilds the tuple; sym args are kept.
// CHECK-LABEL: relax.func @tuple_and_dyn
// CHECK-NEXT:    %[[A:.*]] = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    %[[B:.*]] = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @split(%x, %[[A]], %[[B]]) {proven}
// CHECK-NEXT:    %{{.*}} = relax.tuple %[[A]], %[[B]]
// CHECK-NEXT:    %d = relax.builtin.alloc_tensor : !relax.tensor<[floordiv(m, 2) * 2], f32>
// CHECK-NEXT:    relax.call_dps @dyn(%w, %d) sym [m] :
relax.func @tuple_and_dyn(%x: !relax.tensor<[n * 2], f32>, %w: !relax.tensor<[n], f32>, %v: !relax.tensor<[m], f32>) -> !relax.object {
  %t = relax.call_tir @split(%x) : (!relax.tensor<[n * 2], f32>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.tensor<[n], f32>>
  %d = relax.call_tir @dyn(%w) sym [m] : (!relax.tensor<[n], f32>) -> !relax.tensor<[2 * floordiv(m, 2)], f32>
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.tensor<[n], f32>>
}
