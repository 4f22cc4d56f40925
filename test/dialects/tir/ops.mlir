// RUN: %roundtrip
// RUN: %generic-roundtrip
// The tir dialect: buffers binding symbolic variables, loops, loads/stores (with pad),
// index values, lets, local buffers and sym parameters.

// CHECK-LABEL: tir.prim_func @tir_exp(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
// CHECK-NEXT:    tir.for i in [0, n) {
// CHECK-NEXT:      %v = tir.load %X[i] : f32
// CHECK-NEXT:      %e = math.exp %v : f32
// CHECK-NEXT:      tir.store %Y[i], %e : f32
tir.prim_func @tir_exp(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %v = tir.load %X[i] : f32
    %e = math.exp %v : f32
    tir.store %Y[i], %e : f32
  }
}

// -----

// tir.remf: C's fmod on floats (MLIR's arith.remf, which xDSL does not define).
// CHECK-LABEL: tir.prim_func @tir_fmod(%X: !tir.buffer<[n], f64>, %Y: !tir.buffer<[n], f64>) {
// CHECK:         %r = tir.remf %v, %d : f64
tir.prim_func @tir_fmod(%X: !tir.buffer<[n], f64>, %Y: !tir.buffer<[n], f64>) {
  %d = arith.constant 3.0 : f64
  tir.for i in [0, n) {
    %v = tir.load %X[i] : f64
    %r = tir.remf %v, %d : f64
    tir.store %Y[i], %r : f64
  }
}

// -----

// CHECK-LABEL: tir.prim_func @pad_and_reduce(%X: !tir.buffer<[n, m], f32>, %Y: !tir.buffer<[n + 2, floordiv(m, 2) * 2], f32>, %S: !tir.buffer<[n], f32>) sym [k] {
// CHECK-NEXT:    %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %T = tir.alloc_buffer : !tir.buffer<[k], f32>
// CHECK-NEXT:    tir.for i in [0, n + 2) parallel {
// CHECK-NEXT:      tir.for j in [0, floordiv(m, 2) * 2) {
// CHECK-NEXT:        %v = tir.load %X[i - 1, j] pad %z : f32
// CHECK-NEXT:        tir.store %Y[i, j], %v : f32
// CHECK:         tir.for r in [0, m) {
// CHECK-NEXT:        %a = tir.load %S[i] : f32
// CHECK-NEXT:        %b = tir.load %X[i, r] : f32
tir.prim_func @pad_and_reduce(%X: !tir.buffer<[n, m], f32>, %Y: !tir.buffer<[n + 2, 2 * floordiv(m, 2)], f32>, %S: !tir.buffer<[n], f32>) sym [k] {
  %z = arith.constant 0.0 : f32
  %T = tir.alloc_buffer : !tir.buffer<[k], f32>
  tir.for i in [0, n + 2) parallel {
    tir.for j in [0, 2 * floordiv(m, 2)) {
      %v = tir.load %X[i - 1, j] pad %z : f32
      tir.store %Y[i, j], %v : f32
    }
  }
  tir.for i in [0, n) {
    tir.store %S[i], %z : f32
    tir.for r in [0, m) {
      %a = tir.load %S[i] : f32
      %b = tir.load %X[i, r] : f32
      %c = arith.addf %a, %b : f32
      tir.store %S[i], %c : f32
    }
  }
}

// -----

// CHECK-LABEL: tir.prim_func @gather(%X: !tir.buffer<[n], f32>, %I: !tir.buffer<[m], i64>, %Y: !tir.buffer<[m], f32>) {
// CHECK:           %p = tir.load %I[i] : i64
// CHECK-NEXT:      tir.let t = %p : i64
// CHECK-NEXT:      %v = tir.load %X[t] : f32
// CHECK-NEXT:      %w = tir.index i * 2 + 1 : i64
tir.prim_func @gather(%X: !tir.buffer<[n], f32>, %I: !tir.buffer<[m], i64>, %Y: !tir.buffer<[m], f32>) {
  tir.for i in [0, m) {
    %p = tir.load %I[i] : i64
    tir.let t = %p : i64
    %v = tir.load %X[t] : f32
    %w = tir.index 2 * i + 1 : i64
    tir.store %Y[i], %v : f32
  }
}

// -----

// tir.assert: pairs of expressions in one relation, and the message; its variables are
// defined by the signature, sym parameters, enclosing loops and lets.
// CHECK-LABEL: tir.prim_func @asserts(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[m, 4], f32>, %I: !tir.buffer<[2], i64>) sym [s] {
// CHECK-NEXT:    tir.assert [k, floormod(n * 6, 4)] == [m, 0], "relax.matmul: the lhs columns equal the rhs rows"
// CHECK-NEXT:    tir.assert [s] <= [n * 2 + 1], "a \22quoted\22 message"
// CHECK-NEXT:    %p = tir.load %I[0] : i64
// CHECK-NEXT:    tir.let t = %p : i64
// CHECK-NEXT:    tir.assert [t] < [m], "a let variable" {note = 1 : i64}
// CHECK-NEXT:    tir.for i in [0, n) {
// CHECK-NEXT:      tir.assert [i, 0] < [k, s], "a loop variable"
// CHECK-NEXT:    }
// CHECK-NEXT:    tir.for j in [0, 2) {
// CHECK-NEXT:    }
tir.prim_func @asserts(%A: !tir.buffer<[n, k], f32>, %B: !tir.buffer<[m, 4], f32>, %I: !tir.buffer<[2], i64>) sym [s] {
  tir.assert [k, floormod(6 * n, 4)] == [m, 0], "relax.matmul: the lhs columns equal the rhs rows"
  tir.assert [s]<=[2*n+1], "a \"quoted\" message"
  %p = tir.load %I[0] : i64
  tir.let t = %p : i64
  tir.assert [t] < [m], "a let variable" {note = 1}
  tir.for i in [0, n) {
    tir.assert [i, 0] < [k, s], "a loop variable"
  }
  tir.for j in [0, 2) {}
}
