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

// Symbolic sizes that are not provably equal are not shared; static sizes share the
// best fit, which grows to the larger tensor.
// CHECK-LABEL: relax.func @sizes
// CHECK-NEXT:    %a = relax.builtin.alloc_tensor : !relax.tensor<[n], f32>
// CHECK:         %b = relax.builtin.alloc_tensor : !relax.tensor<[m], f32>
// CHECK:         %[[S2:.*]] = relax.memory.alloc_storage [40] : !relax.object
// CHECK-NEXT:    %c = relax.memory.alloc_tensor %[[S2]] [0] : !relax.tensor<[8], f32>
// CHECK:         %d = relax.memory.alloc_tensor %[[S2]] [0] : !relax.tensor<[10], f32>
// expected-remark @+1 {{memory plan: 5 tensors in 4 storages, planned m * 4 + n * 4 + 80 bytes vs naive m * 4 + n * 4 + 112 bytes}}
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
