// RUN: relax-opt %s --split-input-file -p relax-fuse-ops | filecheck %s

tir.prim_func @add(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[j] : f32
      %c = arith.addf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}
tir.prim_func @relu(%A: !tir.buffer<[k, l], f32>, %C: !tir.buffer<[k, l], f32>) {
  %z = arith.constant 0.0 : f32
  tir.for i in [0, k) {
    tir.for j in [0, l) {
      %a = tir.load %A[i, j] : f32
      %c = arith.maximumf %a, %z : f32
      tir.store %C[i, j], %c : f32
    }
  }
}
tir.prim_func @matmul(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[k, m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %z = arith.constant 0.0 : f32
      tir.store %C[i, j], %z : f32
      tir.for r in [0, k) {
        %a = tir.load %A[i, r] : f32
        %b = tir.load %B[r, j] : f32
        %c = tir.load %C[i, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// A matmul with a broadcast add and a relu as its epilogue becomes one primitive
// function; the second matmul starts a new group (one reduction per group).
// CHECK:       relax.func private @fused_matmul_add_relu(%x: !relax.tensor<[n, 784], f32>, %w: !relax.tensor<[784, 128], f32>, %b: !relax.tensor<[128], f32>) -> !relax.tensor<[n, 128], f32> attributes {primitive} {
// CHECK-NEXT:    %0 = relax.call_tir @matmul(%x, %w)
// CHECK-NEXT:    %1 = relax.call_tir @add(%0, %b)
// CHECK-NEXT:    %2 = relax.call_tir @relu(%1)
// CHECK-NEXT:    relax.return %2
// CHECK:       relax.func private @fused_matmul_add(
// CHECK-LABEL: relax.func @mlp
// CHECK-NEXT:    %out = relax.dataflow
// CHECK-NEXT:      %[[H:.*]] = relax.call @fused_matmul_add_relu(%x, %w, %b)
// CHECK-NEXT:      %[[O:.*]] = relax.call @fused_matmul_add(%[[H]], %w2, %b2)
// CHECK-NEXT:      relax.output %[[O]]
relax.func @mlp(%x: !relax.tensor<[n, 784], f32>, %w: !relax.tensor<[784, 128], f32>, %b: !relax.tensor<[128], f32>, %w2: !relax.tensor<[128, 10], f32>, %b2: !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32> {
  %out = relax.dataflow -> !relax.tensor<[n, 10], f32> {
    %0 = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 784], f32>, !relax.tensor<[784, 128], f32>) -> !relax.tensor<[n, 128], f32>
    %1 = relax.call_tir @add(%0, %b) : (!relax.tensor<[n, 128], f32>, !relax.tensor<[128], f32>) -> !relax.tensor<[n, 128], f32>
    %2 = relax.call_tir @relu(%1) : (!relax.tensor<[n, 128], f32>) -> !relax.tensor<[n, 128], f32>
    %3 = relax.call_tir @matmul(%2, %w2) : (!relax.tensor<[n, 128], f32>, !relax.tensor<[128, 10], f32>) -> !relax.tensor<[n, 10], f32>
    %4 = relax.call_tir @add(%3, %b2) : (!relax.tensor<[n, 10], f32>, !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32>
    relax.output %4 : !relax.tensor<[n, 10], f32>
  }
  relax.return %out : !relax.tensor<[n, 10], f32>
}

// -----

tir.prim_func @relu(%A: !tir.buffer<[k], f32>, %C: !tir.buffer<[k], f32>) {
  %z = arith.constant 0.0 : f32
  tir.for i in [0, k) {
    %a = tir.load %A[i] : f32
    %c = arith.maximumf %a, %z : f32
    tir.store %C[i], %c : f32
  }
}

// Cases that must not fuse: a producer with a second user, and a chain broken by an
// impure region boundary (outside dataflow regions nothing fuses).
// CHECK-LABEL: relax.func @no_fusion
// CHECK-NOT:     relax.call @
// CHECK:         relax.return
relax.func @no_fusion(%x: !relax.tensor<[n], f32>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.tensor<[n], f32>> {
  %a, %b = relax.dataflow -> (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>) {
    %0 = relax.call_tir @relu(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %1 = relax.call_tir @relu(%0) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.output %0, %1 : !relax.tensor<[n], f32>, !relax.tensor<[n], f32>
  }
  %c = relax.call_tir @relu(%a) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %d = relax.call_tir @relu(%c) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %t = relax.tuple %b, %d : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.tensor<[n], f32>>
}

// -----

tir.prim_func @flat(%A: !tir.buffer<[n, m], f32>, %C: !tir.buffer<[n * m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %a = tir.load %A[i, j] : f32
      tir.store %C[i * m + j], %a : f32
    }
  }
}
tir.prim_func @neg(%A: !tir.buffer<[k], f32>, %C: !tir.buffer<[k], f32>) {
  tir.for i in [0, k) {
    %a = tir.load %A[i] : f32
    %c = arith.negf %a : f32
    tir.store %C[i], %c : f32
  }
}

// The fused function keeps the caller's symbolic shapes: m and n appear only inside an
// expression of its parameters' types, so they are passed in an extra shape parameter.
// CHECK:       relax.func private @fused_neg_neg(%x: !relax.tensor<[m * n], f32>, %0: !relax.shape<[m, n]>) -> !relax.tensor<[m * n], f32> attributes {primitive} {
// CHECK-LABEL: relax.func @keeps_shapes
// CHECK:         %[[S:.*]] = relax.shape [m, n] : !relax.shape<[m, n]>
// CHECK-NEXT:    %{{.*}} = relax.call @fused_neg_neg(%x, %[[S]])
relax.func @keeps_shapes(%x: !relax.tensor<[n * m], f32>, %y: !relax.tensor<[n, m], f32>) -> !relax.tensor<[n * m], f32> {
  %r = relax.dataflow -> !relax.tensor<[n * m], f32> {
    %0 = relax.call_tir @neg(%x) : (!relax.tensor<[n * m], f32>) -> !relax.tensor<[n * m], f32>
    %1 = relax.call_tir @flat(%y) : (!relax.tensor<[n, m], f32>) -> !relax.tensor<[n * m], f32>
    %2 = relax.call_tir @neg(%0) : (!relax.tensor<[n * m], f32>) -> !relax.tensor<[n * m], f32>
    relax.output %2 : !relax.tensor<[n * m], f32>
  }
  relax.return %r : !relax.tensor<[n * m], f32>
}

// -----

tir.prim_func @transpose(%A: !tir.buffer<[m, k], f32>, %C: !tir.buffer<[k, m], f32>) {
  tir.for i in [0, k) {
    tir.for j in [0, m) {
      %a = tir.load %A[j, i] : f32
      tir.store %C[i, j], %a : f32
    }
  }
}
tir.prim_func @matmul(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[k, m], f32>, %C: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, m) {
      %z = arith.constant 0.0 : f32
      tir.store %C[i, j], %z : f32
      tir.for r in [0, k) {
        %a = tir.load %A[i, r] : f32
        %b = tir.load %B[r, j] : f32
        %c = tir.load %C[i, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// An injective producer (a linear layer's transposed weight) fuses into the input of a
// matmul, so the fused kernel can read the weight in place.
// CHECK:       relax.func private @fused_transpose_matmul(%w: !relax.tensor<[10, 784], f32>, %x: !relax.tensor<[n, 784], f32>)
// CHECK-NEXT:    %0 = relax.call_tir @transpose(%w)
// CHECK-NEXT:    %1 = relax.call_tir @matmul(%x, %0)
// CHECK-LABEL: relax.func @linear
// CHECK:         relax.call @fused_transpose_matmul(%w, %x)
relax.func @linear(%x: !relax.tensor<[n, 784], f32>, %w: !relax.tensor<[10, 784], f32>) -> !relax.tensor<[n, 10], f32> {
  %out = relax.dataflow -> !relax.tensor<[n, 10], f32> {
    %0 = relax.call_tir @transpose(%w) : (!relax.tensor<[10, 784], f32>) -> !relax.tensor<[784, 10], f32>
    %1 = relax.call_tir @matmul(%x, %0) : (!relax.tensor<[n, 784], f32>, !relax.tensor<[784, 10], f32>) -> !relax.tensor<[n, 10], f32>
    relax.output %1 : !relax.tensor<[n, 10], f32>
  }
  relax.return %out : !relax.tensor<[n, 10], f32>
}

// -----

tir.prim_func @neg(%A: !tir.buffer<[k], f32>, %C: !tir.buffer<[k], f32>) {
  tir.for i in [0, k) {
    %a = tir.load %A[i] : f32
    %c = arith.negf %a : f32
    tir.store %C[i], %c : f32
  }
}

// A long group's name keeps the kernels that fit in 64 characters and counts the rest.
// CHECK: relax.func private @fused_neg_neg_neg_neg_neg_neg_neg_neg_neg_neg_neg_neg_neg_and3(
relax.func @long(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %out = relax.dataflow -> !relax.tensor<[n], f32> {
    %0 = relax.call_tir @neg(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %1 = relax.call_tir @neg(%0) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %2 = relax.call_tir @neg(%1) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %3 = relax.call_tir @neg(%2) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %4 = relax.call_tir @neg(%3) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %5 = relax.call_tir @neg(%4) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %6 = relax.call_tir @neg(%5) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %7 = relax.call_tir @neg(%6) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %8 = relax.call_tir @neg(%7) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %9 = relax.call_tir @neg(%8) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %10 = relax.call_tir @neg(%9) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %11 = relax.call_tir @neg(%10) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %12 = relax.call_tir @neg(%11) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %13 = relax.call_tir @neg(%12) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %14 = relax.call_tir @neg(%13) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    %15 = relax.call_tir @neg(%14) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.output %15 : !relax.tensor<[n], f32>
  }
  relax.return %out : !relax.tensor<[n], f32>
}

// -----

tir.prim_func @matmul(%A: !tir.buffer<[n, 4], f32>, %B: !tir.buffer<[4, 8], f32>, %C: !tir.buffer<[n, 8], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 8) {
      %z = arith.constant 0.0 : f32
      tir.store %C[i, j], %z : f32
      tir.for r in [0, 4) {
        %a = tir.load %A[i, r] : f32
        %b = tir.load %B[r, j] : f32
        %c = tir.load %C[i, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}
tir.prim_func @low(%A: !tir.buffer<[n, 8], f32>, %C: !tir.buffer<[n, 4], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %A[i, j] : f32
      tir.store %C[i, j], %a : f32
    }
  }
}
tir.prim_func @high(%A: !tir.buffer<[n, 8], f32>, %C: !tir.buffer<[n, 4], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %A[i, j + 4] : f32
      tir.store %C[i, j], %a : f32
    }
  }
}
tir.prim_func @mul(%A: !tir.buffer<[n, 4], f32>, %B: !tir.buffer<[n, 4], f32>, %C: !tir.buffer<[n, 4], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %A[i, j] : f32
      %b = tir.load %B[i, j] : f32
      %c = arith.mulf %a, %b : f32
      tir.store %C[i, j], %c : f32
    }
  }
}
tir.prim_func @neg(%A: !tir.buffer<[n, 4], f32>, %C: !tir.buffer<[n, 4], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 4) {
      %a = tir.load %A[i, j] : f32
      %c = arith.negf %a : f32
      tir.store %C[i, j], %c : f32
    }
  }
}

// Diamonds (a value read by several calls that meet again, as an RNN step's gates
// slice one projection): the groups on both sides of the diamond merge, and a
// matmul whose only reader is a group of slices and elementwise calls joins it. A
// matmul whose result is also read outside the group stays apart.
// CHECK:       relax.func private @fused_matmul_low_high_mul_neg_mul(%x: !relax.tensor<[n, 4], f32>, %w: !relax.tensor<[4, 8], f32>) -> !relax.tensor<[n, 4], f32> attributes {primitive} {
// CHECK-NEXT:    %0 = relax.call_tir @matmul(%x, %w)
// CHECK-NEXT:    %1 = relax.call_tir @low(%0)
// CHECK-NEXT:    %2 = relax.call_tir @high(%0)
// CHECK-NEXT:    %3 = relax.call_tir @mul(%1, %2)
// CHECK-NEXT:    %4 = relax.call_tir @neg(%3)
// CHECK-NEXT:    %5 = relax.call_tir @mul(%3, %4)
// CHECK-NEXT:    relax.return %5
// CHECK:       relax.func private @fused_low_high_mul(%0: !relax.tensor<[n, 8], f32>)
// CHECK-LABEL: relax.func @gates
// CHECK-NEXT:    %r, %p, %q = relax.dataflow
// CHECK-NEXT:      %[[G:.*]] = relax.call @fused_matmul_low_high_mul_neg_mul(%x, %w)
// CHECK-NEXT:      %[[P:.*]] = relax.call_tir @matmul(%x, %w)
// CHECK-NEXT:      %[[Q:.*]] = relax.call @fused_low_high_mul(%[[P]])
// CHECK-NEXT:      relax.output %[[G]], %[[P]], %[[Q]]
relax.func @gates(%x: !relax.tensor<[n, 4], f32>, %w: !relax.tensor<[4, 8], f32>) -> !relax.tensor<[n, 8], f32> {
  %r, %p, %q = relax.dataflow -> (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 8], f32>, !relax.tensor<[n, 4], f32>) {
    %0 = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4, 8], f32>) -> !relax.tensor<[n, 8], f32>
    %1 = relax.call_tir @low(%0) : (!relax.tensor<[n, 8], f32>) -> !relax.tensor<[n, 4], f32>
    %2 = relax.call_tir @high(%0) : (!relax.tensor<[n, 8], f32>) -> !relax.tensor<[n, 4], f32>
    %3 = relax.call_tir @mul(%1, %2) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %4 = relax.call_tir @neg(%3) : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %5 = relax.call_tir @mul(%3, %4) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %6 = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4, 8], f32>) -> !relax.tensor<[n, 8], f32>
    %7 = relax.call_tir @low(%6) : (!relax.tensor<[n, 8], f32>) -> !relax.tensor<[n, 4], f32>
    %8 = relax.call_tir @high(%6) : (!relax.tensor<[n, 8], f32>) -> !relax.tensor<[n, 4], f32>
    %9 = relax.call_tir @mul(%7, %8) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    relax.output %5, %6, %9 : !relax.tensor<[n, 4], f32>, !relax.tensor<[n, 8], f32>, !relax.tensor<[n, 4], f32>
  }
  relax.return %p : !relax.tensor<[n, 8], f32>
}
