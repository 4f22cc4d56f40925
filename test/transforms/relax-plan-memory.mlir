// RUN: relax-opt %s --split-input-file -p relax-plan-memory | filecheck %s
// RUN: relax-opt %s --split-input-file -p 'relax-plan-memory{report=true}' --verify-diagnostics

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// A chain of four elementwise kernels over a symbolic n: a and c share a storage; b
// and the result d share with nothing and keep their direct allocations.
// CHECK-LABEL: relax.func @chain
// CHECK-NEXT:    %[[S0:.*]] = relax.memory.alloc_storage [n * 4] : !relax.object
// CHECK-NEXT:    %a = relax.memory.alloc_tensor %[[S0]] [0] : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @ew(%x, %a)
// CHECK-NEXT:    %b = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @ew(%a, %b)
// CHECK-NEXT:    %c = relax.memory.alloc_tensor %[[S0]] [0] : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @ew(%b, %c)
// CHECK-NEXT:    %d = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.call_dps @ew(%c, %d)
// CHECK-NEXT:    relax.memory.kill_storage %[[S0]]
// CHECK-NEXT:    relax.return %d
// expected-remark @+1 {{memory plan: 4 tensors in 3 storages, planned n * 12 bytes vs naive n * 16 bytes}}
relax.func @chain(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%a, %b) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%b, %c) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %d = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%c, %d) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %d : !relax.tensor<[n], f32>
}

// -----

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// Sizes that no proof orders share a storage of their maximum, never more than
// separate allocations would take (max(a, b) <= a + b).
// CHECK-LABEL: relax.func @sizes
// CHECK-NEXT:    %[[S:.*]] = relax.memory.alloc_storage [max(40, m * 4, n * 4)] : !relax.object
// CHECK-NEXT:    %a = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[n], f32>
// CHECK:         %b = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[m], f32>
// CHECK:         %c = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[8], f32>
// CHECK:         %d = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[10], f32>
// CHECK:         %e = relax.builtin.alloc_tensor : !relax.tensor<[10], f32>
// expected-remark @+1 {{memory plan: 5 tensors in 2 storages, planned max(40, m * 4, n * 4) + 40 bytes vs naive m * 4 + n * 4 + 112 bytes}}
relax.func @sizes(%x: !relax.tensor<[n], f32>, %y: !relax.tensor<[m], f32>, %z: !relax.tensor<[8], f32>, %w: !relax.tensor<[10], f32>) -> !relax.tensor<[10], f32> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[m], f32>
  relax.call_dps @ew(%y, %b) : (!relax.tensor<[m], f32>, !relax.tensor<[m], f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[8], f32>
  relax.call_dps @ew(%z, %c) : (!relax.tensor<[8], f32>, !relax.tensor<[8], f32>)
  %d = relax.builtin.alloc_tensor : !relax.tensor<[10], f32>
  relax.call_dps @ew(%w, %d) : (!relax.tensor<[10], f32>, !relax.tensor<[10], f32>)
  %e = relax.builtin.alloc_tensor : !relax.tensor<[10], f32>
  relax.call_dps @ew(%d, %e) : (!relax.tensor<[10], f32>, !relax.tensor<[10], f32>)
  relax.return %e : !relax.tensor<[10], f32>
}

// -----

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// Escaping tensors (a tuple, a packed call) keep their own allocations.
// CHECK-LABEL: relax.func @escapes
// CHECK-COUNT-3: relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
// CHECK-NOT: relax.memory
// expected-remark @+1 {{memory plan: 3 tensors in 3 storages, planned 48 bytes vs naive 48 bytes}}
relax.func @escapes(%x: !relax.tensor<[4], f32>) -> !relax.tuple<!relax.tensor<[4], f32>, !relax.tensor<[4], f32>> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  relax.call_packed "keep"(%a) : (!relax.tensor<[4], f32>) -> ()
  %b = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
  relax.call_dps @ew(%x, %b) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
  relax.call_dps @ew(%x, %c) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  %t = relax.tuple %b, %c : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[4], f32>, !relax.tensor<[4], f32>>
}

// -----

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}

// A symbolic size provably no larger than a free storage reuses it; one provably
// larger takes a free storage that grows to it ([s * 4] after [s], [s * 4] again).
// CHECK-LABEL: relax.func @grows
// CHECK-NEXT:    %[[S0:.*]] = relax.memory.alloc_storage [s * 16] : !relax.object
// CHECK-NEXT:    %a = relax.memory.alloc_tensor %[[S0]] [0] : !relax.tensor<[s], f32>
// CHECK:         %[[S1:.*]] = relax.memory.alloc_storage [s * 16] : !relax.object
// CHECK-NEXT:    %b = relax.memory.alloc_tensor %[[S1]] [0] : !relax.tensor<[s * 4], f32>
// CHECK:         %c = relax.memory.alloc_tensor %[[S0]] [0] : !relax.tensor<[s * 4], f32>
// CHECK:         %d = relax.memory.alloc_tensor %[[S1]] [0] : !relax.tensor<[s * 2], f32>
// expected-remark @+1 {{memory plan: 5 tensors in 3 storages, planned s * 48 bytes vs naive s * 60 bytes}}
relax.func @grows(%x: !relax.tensor<[s], f32>) -> !relax.tensor<[s * 4], f32> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[s], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[s], f32>, !relax.tensor<[s], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[s * 4], f32>
  relax.call_dps @ew(%a, %b) : (!relax.tensor<[s], f32>, !relax.tensor<[s * 4], f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[s * 4], f32>
  relax.call_dps @ew(%b, %c) : (!relax.tensor<[s * 4], f32>, !relax.tensor<[s * 4], f32>)
  %d = relax.builtin.alloc_tensor : !relax.tensor<[s * 2], f32>
  relax.call_dps @ew(%c, %d) : (!relax.tensor<[s * 4], f32>, !relax.tensor<[s * 2], f32>)
  %e = relax.builtin.alloc_tensor : !relax.tensor<[s * 4], f32>
  relax.call_dps @ew(%d, %e) : (!relax.tensor<[s * 2], f32>, !relax.tensor<[s * 4], f32>)
  relax.return %e : !relax.tensor<[s * 4], f32>
}

// -----

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
}
tir.prim_func @ew3(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[k], f32>) {
}

// A static size takes the best-fitting static storage: the smallest that holds it.
// CHECK-LABEL: relax.func @best_fit
// CHECK-NEXT:    %[[A:.*]] = relax.memory.alloc_storage [64] : !relax.object
// CHECK-NEXT:    %a = relax.memory.alloc_tensor %[[A]] [0] : !relax.tensor<[16], f32>
// CHECK:         %[[B:.*]] = relax.memory.alloc_storage [32] : !relax.object
// CHECK-NEXT:    %b = relax.memory.alloc_tensor %[[B]] [0] : !relax.tensor<[8], f32>
// CHECK:         %c = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
// CHECK:         %d = relax.memory.alloc_tensor %[[B]] [0] : !relax.tensor<[6], f32>
// CHECK:         %f = relax.memory.alloc_tensor %[[A]] [0] : !relax.tensor<[12], f32>
// expected-remark @+1 {{memory plan: 6 tensors in 4 storages, planned 128 bytes vs naive 200 bytes}}
relax.func @best_fit(%x: !relax.tensor<[16], f32>, %y: !relax.tensor<[8], f32>) -> !relax.tensor<[4], f32> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[16], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[16], f32>, !relax.tensor<[16], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[8], f32>
  relax.call_dps @ew(%y, %b) : (!relax.tensor<[8], f32>, !relax.tensor<[8], f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
  relax.call_dps @ew3(%a, %b, %c) : (!relax.tensor<[16], f32>, !relax.tensor<[8], f32>, !relax.tensor<[4], f32>)
  %d = relax.builtin.alloc_tensor : !relax.tensor<[6], f32>
  relax.call_dps @ew(%c, %d) : (!relax.tensor<[4], f32>, !relax.tensor<[6], f32>)
  %f = relax.builtin.alloc_tensor : !relax.tensor<[12], f32>
  relax.call_dps @ew(%d, %f) : (!relax.tensor<[6], f32>, !relax.tensor<[12], f32>)
  %g = relax.builtin.alloc_tensor : !relax.tensor<[4], f32>
  relax.call_dps @ew(%f, %g) : (!relax.tensor<[12], f32>, !relax.tensor<[4], f32>)
  relax.return %g : !relax.tensor<[4], f32>
}

// -----

tir.prim_func @ew(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[m], f32>) {
}
tir.prim_func @ew3(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
}

// A storage never grows to a size over a variable bound after it is allocated: %c
// (over r, bound by the match_shape) does not join %a's storage, %d does.
// CHECK-LABEL: relax.func @late_variable
// CHECK-NEXT:    %[[S:.*]] = relax.memory.alloc_storage [n * 4] : !relax.object
// CHECK-NEXT:    %a = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[n], f32>
// CHECK:         %b = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK:         %c = relax.builtin.alloc_tensor : !relax.tensor<[r], f32>
// CHECK:         %d = relax.memory.alloc_tensor %[[S]] [0] : !relax.tensor<[n], f32>
// expected-remark @+1 {{memory plan: 5 tensors in 4 storages, planned n * 12 + r * 4 bytes vs naive n * 16 + r * 4 bytes}}
relax.func @late_variable(%x: !relax.tensor<[n], f32>, %y: !relax.tensor<ndim=1, f32>) -> !relax.tensor<[n], f32> {
  %a = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%x, %a) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %b = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%a, %b) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  %m = relax.match_shape %y [r] : (!relax.tensor<ndim=1, f32>)
  %c = relax.builtin.alloc_tensor : !relax.tensor<[r], f32>
  relax.call_dps @ew(%m, %c) : (!relax.tensor<[r], f32>, !relax.tensor<[r], f32>)
  %d = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew(%c, %d) : (!relax.tensor<[r], f32>, !relax.tensor<[n], f32>)
  %e = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
  relax.call_dps @ew3(%d, %b, %e) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %e : !relax.tensor<[n], f32>
}
