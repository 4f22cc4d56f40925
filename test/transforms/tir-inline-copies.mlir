// RUN: relax-opt %s --split-input-file -p tir-inline-copies | filecheck %s
// A local buffer written by one nest that copies another buffer over all of it is read
// through: its readers load the source at the composed index, and the copy goes away.

// A chain of views (expand_dims, permute_dims, squeeze) collapses into one access.
// CHECK-LABEL: tir.prim_func @chain
// CHECK-NOT:     tir.alloc_buffer
// CHECK:         tir.for i in [0, 8) {
// CHECK-NEXT:      tir.for j in [0, n) {
// CHECK-NEXT:        %t = tir.load %A[j, i] : f32
// CHECK-NEXT:        %e = math.exp %t : f32
// CHECK-NEXT:        tir.store %C[i, j], %e : f32
builtin.module {
  tir.prim_func @chain(%A: !tir.buffer<[n, 8], f32>, %C: !tir.buffer<[8, n], f32>) {
    %B = tir.alloc_buffer : !tir.buffer<[1, n, 8], f32>
    tir.for i in [0, 1) {
      tir.for j in [0, n) {
        tir.for k in [0, 8) {
          %a = tir.load %A[j, k] : f32
          tir.store %B[i, j, k], %a : f32
        }
      }
    }
    %T = tir.alloc_buffer : !tir.buffer<[8, n, 1], f32>
    tir.for i in [0, 8) {
      tir.for j in [0, n) {
        tir.for k in [0, 1) {
          %b = tir.load %B[k, j, i] : f32
          tir.store %T[i, j, k], %b : f32
        }
      }
    }
    tir.for i in [0, 8) {
      tir.for j in [0, n) {
        %t = tir.load %T[i, j, 0] : f32
        %e = math.exp %t : f32
        tir.store %C[i, j], %e : f32
      }
    }
  }
}

// -----

// A slice along the first axis is a row-major block of its source, so a reshape of it
// reads the source with the same divisions; the transposed copy that the second
// reshape reads stays: a reshape of a transpose is no view.
// CHECK-LABEL: tir.prim_func @slice_then_reshape
// CHECK-NEXT:    tir.for i in [0, n * 2) {
// CHECK-NEXT:      tir.for j in [0, 4) {
// CHECK-NEXT:        %s = tir.load %A[1, floordiv(i * 4 + j, 8), floormod(i * 4 + j, 8)] : f32
// CHECK-LABEL: tir.prim_func @transpose_then_reshape
// CHECK-NEXT:    %T = tir.alloc_buffer : !tir.buffer<[8, n], f32>
// CHECK:         %t = tir.load %T[floordiv(i * 4 + j, n), floormod(i * 4 + j, n)] : f32
builtin.module {
  tir.prim_func @slice_then_reshape(%A: !tir.buffer<[3, n, 8], f32>, %C: !tir.buffer<[2 * n, 4], f32>) {
    %S = tir.alloc_buffer : !tir.buffer<[n, 8], f32>
    tir.for i in [0, n) {
      tir.for j in [0, 8) {
        %a = tir.load %A[1, i, j] : f32
        tir.store %S[i, j], %a : f32
      }
    }
    tir.for i in [0, 2 * n) {
      tir.for j in [0, 4) {
        %s = tir.load %S[floordiv(i * 4 + j, 8), floormod(i * 4 + j, 8)] : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
  tir.prim_func @transpose_then_reshape(%A: !tir.buffer<[n, 8], f32>, %C: !tir.buffer<[2 * n, 4], f32>) {
    %T = tir.alloc_buffer : !tir.buffer<[8, n], f32>
    tir.for i in [0, 8) {
      tir.for j in [0, n) {
        %a = tir.load %A[j, i] : f32
        tir.store %T[i, j], %a : f32
      }
    }
    tir.for i in [0, 2 * n) {
      tir.for j in [0, 4) {
        %t = tir.load %T[floordiv(i * 4 + j, n), floormod(i * 4 + j, n)] : f32
        tir.store %C[i, j], %t : f32
      }
    }
  }
}

// -----

// Not inlined: a buffer that holds computed values (exp), a reader with a pad (its
// bounds check is on the local buffer), and a copy whose source is overwritten while
// the copy is still read.
// CHECK-LABEL: tir.prim_func @computed
// CHECK-NEXT:    %E = tir.alloc_buffer
// CHECK-LABEL: tir.prim_func @padded_reader
// CHECK-NEXT:    %B = tir.alloc_buffer
// CHECK-LABEL: tir.prim_func @source_overwritten
// CHECK-NEXT:    %B = tir.alloc_buffer
builtin.module {
  tir.prim_func @computed(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
    %E = tir.alloc_buffer : !tir.buffer<[n], f32>
    tir.for i in [0, n) {
      %a = tir.load %A[i] : f32
      %e = math.exp %a : f32
      tir.store %E[i], %e : f32
    }
    tir.for i in [0, n) {
      %e = tir.load %E[i] : f32
      tir.store %C[i], %e : f32
    }
  }
  tir.prim_func @padded_reader(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
    %B = tir.alloc_buffer : !tir.buffer<[n], f32>
    tir.for i in [0, n) {
      %a = tir.load %A[i] : f32
      tir.store %B[i], %a : f32
    }
    %zero = arith.constant 0.0 : f32
    tir.for i in [0, n) {
      %b = tir.load %B[i + 1] pad %zero : f32
      tir.store %C[i], %b : f32
    }
  }
  tir.prim_func @source_overwritten(%A: !tir.buffer<[n], f32>, %C: !tir.buffer<[n], f32>) {
    %B = tir.alloc_buffer : !tir.buffer<[n], f32>
    tir.for i in [0, n) {
      %a = tir.load %A[i] : f32
      tir.store %B[i], %a : f32
    }
    tir.for i in [0, n) {
      %one = arith.constant 1.0 : f32
      tir.store %A[i], %one : f32
    }
    tir.for i in [0, n) {
      %b = tir.load %B[i] : f32
      tir.store %C[i], %b : f32
    }
  }
}

// -----

// The kernel checks each index it cannot prove inside the buffer it reads. Read through,
// a check against the copy would become one against its (larger) source, so a copy whose
// reader's index is data-dependent (%I) or not bounded by its loops (k against n) stays;
// a proven reader (%D) reads the source. Asserts are never removed.
// CHECK-LABEL: tir.prim_func @keeps_checks
// CHECK-NEXT:    tir.assert [k] <= [m], "the reads fit"
// CHECK-NEXT:    %[[B:.*]] = tir.alloc_buffer : !tir.buffer<[2], f32>
// CHECK:           tir.store %[[B]][i], %{{.*}} : f32
// CHECK:         %[[C:.*]] = tir.alloc_buffer : !tir.buffer<[n], f32>
// CHECK:           tir.store %[[C]][i], %{{.*}} : f32
// CHECK-NOT:     tir.alloc_buffer
// CHECK:           tir.let t = %{{.*}} : i64
// CHECK-NEXT:      %{{.*}} = tir.load %[[B]][t] : f32
// CHECK:           %{{.*}} = tir.load %[[C]][i] : f32
// CHECK:           %{{.*}} = tir.load %A[i + 1] : f32
builtin.module {
  tir.prim_func @keeps_checks(%A: !tir.buffer<[m], f32>, %I: !tir.buffer<[4], i64>, %Y: !tir.buffer<[4], f32>, %Z: !tir.buffer<[k], f32>, %W: !tir.buffer<[2], f32>) sym [n] {
    tir.assert [k] <= [m], "the reads fit"
    %B = tir.alloc_buffer : !tir.buffer<[2], f32>
    tir.for i in [0, 2) {
      %a = tir.load %A[i + 1] : f32
      tir.store %B[i], %a : f32
    }
    %C = tir.alloc_buffer : !tir.buffer<[n], f32>
    tir.for i in [0, n) {
      %a = tir.load %A[i] : f32
      tir.store %C[i], %a : f32
    }
    %D = tir.alloc_buffer : !tir.buffer<[2], f32>
    tir.for i in [0, 2) {
      %a = tir.load %A[i + 1] : f32
      tir.store %D[i], %a : f32
    }
    tir.for i in [0, 4) {
      %p = tir.load %I[i] : i64
      tir.let t = %p : i64
      %b = tir.load %B[t] : f32
      tir.store %Y[i], %b : f32
    }
    tir.for i in [0, k) {
      %c = tir.load %C[i] : f32
      tir.store %Z[i], %c : f32
    }
    tir.for i in [0, 2) {
      %d = tir.load %D[i] : f32
      tir.store %W[i], %d : f32
    }
  }
}
