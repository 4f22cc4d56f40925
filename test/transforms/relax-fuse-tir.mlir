// RUN: relax-opt %s --split-input-file -p relax-fuse-tir | filecheck %s
// The kernels of each primitive function merge into one prim_func: function parameters
// are the input buffers, kernel-to-kernel values become tir.alloc_buffer intermediates,
// each kernel's variables are renamed to the caller's shapes, loop variables keep their
// names (sibling stages may share them), and variables no buffer binds become sym
// parameters passed by the call.

// CHECK-LABEL: tir.prim_func @fused_matmul_add_relu(%x: !tir.buffer<[n, 784], f32>, %w: !tir.buffer<[784, 128], f32>, %b: !tir.buffer<[128], f32>, %0: !tir.buffer<[n, 128], f32>) {
// CHECK-NEXT:    %[[MM:.*]] = tir.alloc_buffer : !tir.buffer<[n, 128], f32>
// CHECK-NEXT:    tir.for i in [0, n) {
// CHECK-NEXT:      tir.for j in [0, 128) {
// CHECK:               tir.for r in [0, 784) {
// CHECK:             %[[ADD:.*]] = tir.alloc_buffer : !tir.buffer<[n, 128], f32>
// CHECK:             tir.store %[[ADD]][i, j]
// CHECK:             tir.store %0[i, j]
// CHECK-LABEL: relax.func @mlp
// CHECK-NEXT:    %out = relax.dataflow
// CHECK-NEXT:      %[[H:.*]] = relax.call_tir @fused_matmul_add_relu(%x, %w, %b)
// CHECK-NEXT:      %[[O:.*]] = relax.call_tir @fused_matmul_add(%[[H]], %w2, %b2)
// CHECK-NOT:   relax.func private
// CHECK-NOT:   tir.prim_func @matmul


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
    %z = arith.constant 0.000000e+00 : f32
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
        %z = arith.constant 0.000000e+00 : f32
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
  relax.func private @fused_matmul_add_relu(%x: !relax.tensor<[n, 784], f32>, %w: !relax.tensor<[784, 128], f32>, %b: !relax.tensor<[128], f32>) -> !relax.tensor<[n, 128], f32> attributes {primitive} {
    %0 = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 784], f32>, !relax.tensor<[784, 128], f32>) -> !relax.tensor<[n, 128], f32>
    %1 = relax.call_tir @add(%0, %b) : (!relax.tensor<[n, 128], f32>, !relax.tensor<[128], f32>) -> !relax.tensor<[n, 128], f32>
    %2 = relax.call_tir @relu(%1) : (!relax.tensor<[n, 128], f32>) -> !relax.tensor<[n, 128], f32>
    relax.return %2 : !relax.tensor<[n, 128], f32>
  }
  relax.func private @fused_matmul_add(%0: !relax.tensor<[n, 128], f32>, %w2: !relax.tensor<[128, 10], f32>, %b2: !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32> attributes {primitive} {
    %1 = relax.call_tir @matmul(%0, %w2) : (!relax.tensor<[n, 128], f32>, !relax.tensor<[128, 10], f32>) -> !relax.tensor<[n, 10], f32>
    %2 = relax.call_tir @add(%1, %b2) : (!relax.tensor<[n, 10], f32>, !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32>
    relax.return %2 : !relax.tensor<[n, 10], f32>
  }
  relax.func @mlp(%x: !relax.tensor<[n, 784], f32>, %w: !relax.tensor<[784, 128], f32>, %b: !relax.tensor<[128], f32>, %w2: !relax.tensor<[128, 10], f32>, %b2: !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32> {
    %out = relax.dataflow -> !relax.tensor<[n, 10], f32> {
      %0 = relax.call @fused_matmul_add_relu(%x, %w, %b) : (!relax.tensor<[n, 784], f32>, !relax.tensor<[784, 128], f32>, !relax.tensor<[128], f32>) -> !relax.tensor<[n, 128], f32>
      %1 = relax.call @fused_matmul_add(%0, %w2, %b2) : (!relax.tensor<[n, 128], f32>, !relax.tensor<[128, 10], f32>, !relax.tensor<[10], f32>) -> !relax.tensor<[n, 10], f32>
      relax.output %1 : !relax.tensor<[n, 10], f32>
    }
    relax.return %out : !relax.tensor<[n, 10], f32>
  }

// -----
// CHECK-LABEL: tir.prim_func @fused_neg_neg(%x: !tir.buffer<[m * n], f32>, %0: !tir.buffer<[m * n], f32>) sym [m, n] {
// CHECK-LABEL: relax.func @keeps_shapes
// CHECK:         relax.call_tir @fused_neg_neg(%x) sym [m, n]

  tir.prim_func @flat(%A: !tir.buffer<[n, m], f32>, %C: !tir.buffer<[m * n], f32>) {
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
  relax.func private @fused_neg_neg(%x: !relax.tensor<[m * n], f32>, %0: !relax.shape<[m, n]>) -> !relax.tensor<[m * n], f32> attributes {primitive} {
    %1 = relax.call_tir @neg(%x) : (!relax.tensor<[m * n], f32>) -> !relax.tensor<[m * n], f32>
    %2 = relax.call_tir @neg(%1) : (!relax.tensor<[m * n], f32>) -> !relax.tensor<[m * n], f32>
    relax.return %2 : !relax.tensor<[m * n], f32>
  }
  relax.func @keeps_shapes(%x: !relax.tensor<[m * n], f32>, %y: !relax.tensor<[n, m], f32>) -> !relax.tensor<[m * n], f32> {
    %r = relax.dataflow -> !relax.tensor<[m * n], f32> {
      %0 = relax.call_tir @flat(%y) : (!relax.tensor<[n, m], f32>) -> !relax.tensor<[m * n], f32>
      %1 = relax.shape [m, n] : !relax.shape<[m, n]>
      %2 = relax.call @fused_neg_neg(%x, %1) : (!relax.tensor<[m * n], f32>, !relax.shape<[m, n]>) -> !relax.tensor<[m * n], f32>
      relax.output %2 : !relax.tensor<[m * n], f32>
    }
    relax.return %r : !relax.tensor<[m * n], f32>
  }


// -----

// A variable is renamed apart where it would shadow one in scope: a top-level tir.let
// stays in scope for the stages after it (the second kernel's `t` is renamed and its
// load reads the renamed copy), and a loop variable named like one of the caller's
// (`n` in @neg) is renamed; the loops of sibling stages keep their names (`i`).

// CHECK-LABEL: tir.prim_func @fused_gather_gather_neg
// CHECK:         tir.let t = %{{.*}} : i64
// CHECK-NEXT:    tir.for i in [0, m) {
// CHECK-NEXT:      %{{.*}} = tir.load %x[t, i] : f32
// CHECK:         tir.let [[T2:t[0-9]+]] = %{{.*}} : i64
// CHECK-NEXT:    tir.for i in [0, m) {
// CHECK-NEXT:      %{{.*}} = tir.load %{{.*}}[[[T2]], i] : f32
// CHECK:         tir.for [[N:n[0-9]+]] in [0, n) {
// CHECK-NEXT:      tir.for j in [0, m) {
// CHECK-NEXT:        %{{.*}} = tir.load %{{.*}}[[[N]], j] : f32
// CHECK:       relax.call_tir @fused_gather_gather_neg(%x, %k) :
builtin.module {
  tir.prim_func @gather(%A: !tir.buffer<[n, m], f32>, %K: !tir.buffer<[], i64>, %C: !tir.buffer<[n, m], f32>) {
    %k = tir.load %K[] : i64
    tir.let t = %k : i64
    tir.for i in [0, m) {
      %a = tir.load %A[t, i] : f32
      tir.store %C[t, i], %a : f32
    }
  }
  tir.prim_func @neg(%A: !tir.buffer<[p, q], f32>, %C: !tir.buffer<[p, q], f32>) {
    tir.for n in [0, p) {
      tir.for j in [0, q) {
        %a = tir.load %A[n, j] : f32
        %b = arith.negf %a : f32
        tir.store %C[n, j], %b : f32
      }
    }
  }
  relax.func private @fused_gather_gather_neg(%x: !relax.tensor<[n, m], f32>, %k: !relax.tensor<[], i64>) -> !relax.tensor<[n, m], f32> attributes {primitive} {
    %0 = relax.call_tir @gather(%x, %k) : (!relax.tensor<[n, m], f32>, !relax.tensor<[], i64>) -> !relax.tensor<[n, m], f32>
    %1 = relax.call_tir @gather(%0, %k) : (!relax.tensor<[n, m], f32>, !relax.tensor<[], i64>) -> !relax.tensor<[n, m], f32>
    %2 = relax.call_tir @neg(%1) : (!relax.tensor<[n, m], f32>) -> !relax.tensor<[n, m], f32>
    relax.return %2 : !relax.tensor<[n, m], f32>
  }
  relax.func @main(%x: !relax.tensor<[n, m], f32>, %k: !relax.tensor<[], i64>) -> !relax.tensor<[n, m], f32> {
    %r = relax.dataflow -> !relax.tensor<[n, m], f32> {
      %0 = relax.call @fused_gather_gather_neg(%x, %k) : (!relax.tensor<[n, m], f32>, !relax.tensor<[], i64>) -> !relax.tensor<[n, m], f32>
      relax.output %0 : !relax.tensor<[n, m], f32>
    }
    relax.return %r : !relax.tensor<[n, m], f32>
  }
}

// -----

// Every constraint of a merged kernel is kept. Its variables are bound as its entry
// binds them (sym values first, then the first whole buffer dimension of each); each
// other dimension the fused function is not proven to pass becomes a tir.assert (in
// the fused function's variables), and the kernels' own asserts are carried over. They
// all go first, before any buffer is allocated or read; an assert that uses a let
// variable stays where it is.
// CHECK-LABEL: tir.prim_func @fused_addb_twice_scale(%x: !tir.buffer<[n, 4], f32>, %y: !tir.buffer<[5], f32>, %z: !tir.buffer<[j], f32>, %k: !tir.buffer<[], i64>, %0: !tir.buffer<[j], f32>) sym [s] {
// CHECK-NEXT:    tir.assert [5] == [4], "@addb: buffer #1 %B dimension 0 is m"
// CHECK-NEXT:    tir.assert [n] == [n * 2], "@twice: buffer #1 %C dimension 0 is l * 2"
// CHECK-NEXT:    tir.assert [j] == [s], "@scale: buffer #0 %A dimension 0 is q"
// CHECK-NEXT:    tir.assert [j] == [s], "@scale: buffer #3 %C dimension 0 is q"
// CHECK-NEXT:    tir.assert [n * 4] <= [s + 1], "scale: the table fits"
// CHECK-NEXT:    %{{.*}} = tir.alloc_buffer : !tir.buffer<[n, 4], f32>
// CHECK-NOT:     tir.assert
// CHECK:         %{{.*}} = tir.alloc_buffer : !tir.buffer<[n, 4], f32>
// CHECK-NOT:     tir.assert
// CHECK:         tir.let [[T:t[0-9]*]] = %{{.*}} : i64
// CHECK-NEXT:    tir.assert [[[T]]] < [n], "scale: the row is inside"
// CHECK:       relax.call_tir @fused_addb_twice_scale(%x, %y, %z, %k) sym [s] :
builtin.module {
  tir.prim_func @addb(%A: !tir.buffer<[n, m], f32>, %B: !tir.buffer<[m], f32>, %C: !tir.buffer<[n, m], f32>) {
    tir.for i in [0, n) {
      tir.for j in [0, m) {
        %a = tir.load %A[i, j] : f32
        %b = tir.load %B[j] : f32
        %c = arith.addf %a, %b : f32
        tir.store %C[i, j], %c : f32
      }
    }
  }
  tir.prim_func @twice(%A: !tir.buffer<[l, c], f32>, %C: !tir.buffer<[l * 2, c], f32>) {
    tir.for i in [0, l) {
      tir.for j in [0, c) {
        %a = tir.load %A[i, j] : f32
        tir.store %C[i, j], %a : f32
        tir.store %C[i + l, j], %a : f32
      }
    }
  }
  tir.prim_func @scale(%A: !tir.buffer<[q], f32>, %B: !tir.buffer<[p, r], f32>, %K: !tir.buffer<[], i64>, %C: !tir.buffer<[q], f32>) sym [q] {
    tir.assert [p * r] <= [q + 1], "scale: the table fits"
    %k = tir.load %K[] : i64
    tir.let t = %k : i64
    tir.assert [t] < [p], "scale: the row is inside"
    tir.for i in [0, q) {
      %a = tir.load %A[i] : f32
      %b = tir.load %B[t, 0] : f32
      %c = arith.mulf %a, %b : f32
      tir.store %C[i], %c : f32
    }
  }
  relax.func private @fused_addb_twice_scale(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[5], f32>, %z: !relax.tensor<[j], f32>, %k: !relax.tensor<[], i64>, %s: !relax.shape<[s]>) -> !relax.tensor<[j], f32> attributes {primitive} {
    %0 = relax.call_tir @addb(%x, %y) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[5], f32>) -> !relax.tensor<[n, 4], f32>
    %1 = relax.call_tir @twice(%0) : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
    %2 = relax.call_tir @scale(%z, %1, %k) sym [s] : (!relax.tensor<[j], f32>, !relax.tensor<[n, 4], f32>, !relax.tensor<[], i64>) -> !relax.tensor<[j], f32>
    relax.return %2 : !relax.tensor<[j], f32>
  }
  relax.func @main(%x: !relax.tensor<[n, 4], f32>, %y: !relax.tensor<[5], f32>, %z: !relax.tensor<[j], f32>, %k: !relax.tensor<[], i64>, %s: !relax.shape<[s]>) -> !relax.tensor<[j], f32> {
    %r = relax.dataflow -> !relax.tensor<[j], f32> {
      %0 = relax.call @fused_addb_twice_scale(%x, %y, %z, %k, %s) : (!relax.tensor<[n, 4], f32>, !relax.tensor<[5], f32>, !relax.tensor<[j], f32>, !relax.tensor<[], i64>, !relax.shape<[s]>) -> !relax.tensor<[j], f32>
      relax.output %0 : !relax.tensor<[j], f32>
    }
    relax.return %r : !relax.tensor<[j], f32>
  }
}
