// RUN: relax-opt %s --split-input-file -p tir-parallelize | filecheck %s
// tir-parallelize marks the loop of each top-level nest that threads may split: the
// same range in every nest, and every buffer the prim_func writes read and written only
// at that loop's variable in one dimension of its own.

// An element-wise nest and a row reduction over its result, both split along rows:
// each thread writes the rows of its slice of T, then reads only those.
tir.prim_func @rows(%X: !tir.buffer<[n, 256], f32>, %S: !tir.buffer<[n], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n, 256], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 256) {
      %x = tir.load %X[i, j] : f32
      %e = math.exp %x : f32
      tir.store %T[i, j], %e : f32
    }
  }
  tir.for i2 in [0, n) {
    %z = arith.constant 0.000000e+00 : f32
    tir.store %S[i2], %z : f32
    tir.for k in [0, 256) {
      %s = tir.load %S[i2] : f32
      %t = tir.load %T[i2, k] : f32
      %a = arith.addf %s, %t : f32
      tir.store %S[i2], %a : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @rows
// CHECK:         tir.for i in [0, n) parallel {
// CHECK-NEXT:      tir.for j in [0, 256) {
// CHECK:         tir.for i2 in [0, n) parallel {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK:           tir.for k in [0, 256) {

// -----

// A batch of one is no split: the next loop is, under it.
tir.prim_func @one(%X: !tir.buffer<[1, 64, 64, 64], f32>, %Y: !tir.buffer<[1, 64, 64, 64], f32>) {
  tir.for n in [0, 1) {
    tir.for c in [0, 64) {
      tir.for h in [0, 64) {
        tir.for w in [0, 64) {
          %x = tir.load %X[n, c, h, w] : f32
          %t = math.tanh %x : f32
          tir.store %Y[n, c, h, w], %t : f32
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @one
// CHECK-NEXT:    tir.for n in [0, 1) {
// CHECK-NEXT:      tir.for c in [0, 64) parallel {
// CHECK-NEXT:        tir.for h in [0, 64) {

// -----

// The second nest reads the next row of what the first wrote, which another thread
// may write: nothing is split.
tir.prim_func @neighbour(%X: !tir.buffer<[n, 256], f32>, %Y: !tir.buffer<[n, 256], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[n, 256], f32>
  tir.for i in [0, n) {
    tir.for j in [0, 256) {
      %x = tir.load %X[i, j] : f32
      tir.store %T[i, j], %x : f32
    }
  }
  tir.for i2 in [0, n) {
    tir.for j2 in [0, 256) {
      %p = arith.constant 0.000000e+00 : f32
      %t = tir.load %T[i2 + 1, j2] pad %p : f32
      tir.store %Y[i2, j2], %t : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @neighbour
// CHECK-NOT:     parallel

// -----

// A transpose writes its output at the split variable in one dimension and reads it
// back in another: nothing is split.
tir.prim_func @transposed(%X: !tir.buffer<[512, 512], f32>, %Y: !tir.buffer<[512, 512], f32>, %Z: !tir.buffer<[512, 512], f32>) {
  tir.for i in [0, 512) {
    tir.for j in [0, 512) {
      %x = tir.load %X[i, j] : f32
      tir.store %Y[i, j], %x : f32
    }
  }
  tir.for i2 in [0, 512) {
    tir.for j2 in [0, 512) {
      %y = tir.load %Y[j2, i2] : f32
      tir.store %Z[i2, j2], %y : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @transposed
// CHECK-NOT:     parallel

// -----

// Nests over different ranges (a batch, then channels) are not split, nor is a store
// outside any loop, nor a nest of less work than a thread pays for.
tir.prim_func @ranges(%X: !tir.buffer<[4, 64, 512], f32>, %Y: !tir.buffer<[4, 64, 512], f32>, %Z: !tir.buffer<[64, 4, 512], f32>) {
  tir.for i in [0, 4) {
    tir.for j in [0, 64) {
      tir.for k in [0, 512) {
        %x = tir.load %X[i, j, k] : f32
        tir.store %Y[i, j, k], %x : f32
      }
    }
  }
  tir.for j2 in [0, 64) {
    tir.for i2 in [0, 4) {
      tir.for k2 in [0, 512) {
        %x = tir.load %X[i2, j2, k2] : f32
        tir.store %Z[j2, i2, k2], %x : f32
      }
    }
  }
}

tir.prim_func @outside(%X: !tir.buffer<[512, 512], f32>, %Y: !tir.buffer<[512, 512], f32>) {
  %z = arith.constant 0.000000e+00 : f32
  tir.store %Y[0, 0], %z : f32
  tir.for i in [0, 512) {
    tir.for j in [0, 512) {
      %x = tir.load %X[i, j] : f32
      tir.store %Y[i, j], %x : f32
    }
  }
}

tir.prim_func @small(%X: !tir.buffer<[64, 64], f32>, %Y: !tir.buffer<[64, 64], f32>) {
  tir.for i in [0, 64) {
    tir.for j in [0, 64) {
      %x = tir.load %X[i, j] : f32
      tir.store %Y[i, j], %x : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @ranges
// CHECK-NOT:     parallel
// CHECK-LABEL: tir.prim_func @outside
// CHECK-NOT:     parallel
// CHECK-LABEL: tir.prim_func @small
// CHECK-NOT:     parallel

// -----

// A product in register tiles is split along its rows (i), not its vector axis (j).
tir.prim_func @product(%A: !tir.buffer<[96, 128], f32>, %B: !tir.buffer<[128, 96], f32>, %C: !tir.buffer<[96, 96], f32>) {
  tir.for i in [0, 96) {
    tir.for j in [0, 96) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 128) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[k, j] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @product
// CHECK-NEXT:    tir.for i in [0, 96) parallel {
// CHECK-NEXT:      tir.for j in [0, 96) {

// -----

// A batch of symbolic size (maybe one image) is split together with the loop inside
// it: the threads share the pairs (image, output channel). The padded copy runs over
// the input's channels, not the output's: each thread fills the whole images its
// slice touches, in a copy of its own (a local buffer).
tir.prim_func @batch(%X: !tir.buffer<[n, 8, 32], f32>, %Y: !tir.buffer<[n, 16, 32], f32>) {
  %P = tir.alloc_buffer : !tir.buffer<[n, 8, 34], f32>
  tir.for i in [0, n) {
    tir.for c in [0, 8) {
      tir.for w in [0, 34) {
        %z = arith.constant 0.000000e+00 : f32
        %x = tir.load %X[i, c, w - 1] pad %z : f32
        tir.store %P[i, c, w], %x : f32
      }
    }
  }
  tir.for i2 in [0, n) {
    tir.for k in [0, 16) {
      tir.for w2 in [0, 32) {
        %a = tir.load %P[i2, 0, w2] : f32
        %b = tir.load %P[i2, 7, w2 + 2] : f32
        %s = arith.addf %a, %b : f32
        tir.store %Y[i2, k, w2], %s : f32
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @batch
// CHECK:         tir.for i in [0, n) parallel {
// CHECK-NEXT:      tir.for c in [0, 8) {
// CHECK:         tir.for i2 in [0, n) parallel {
// CHECK-NEXT:      tir.for k in [0, 16) parallel {
// CHECK-NEXT:        tir.for w2 in [0, 32) {

// -----

// The same with the copy a parameter, which every thread would write whole: the
// threads split the images alone.
tir.prim_func @shared_copy(%X: !tir.buffer<[n, 8, 32], f32>, %P: !tir.buffer<[n, 8, 34], f32>, %Y: !tir.buffer<[n, 16, 32], f32>) {
  tir.for i in [0, n) {
    tir.for c in [0, 8) {
      tir.for w in [0, 34) {
        %z = arith.constant 0.000000e+00 : f32
        %x = tir.load %X[i, c, w - 1] pad %z : f32
        tir.store %P[i, c, w], %x : f32
      }
    }
  }
  tir.for i2 in [0, n) {
    tir.for k in [0, 16) {
      tir.for w2 in [0, 32) {
        %a = tir.load %P[i2, 0, w2] : f32
        %b = tir.load %P[i2, 7, w2 + 2] : f32
        %s = arith.addf %a, %b : f32
        tir.store %Y[i2, k, w2], %s : f32
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @shared_copy
// CHECK:         tir.for i in [0, n) parallel {
// CHECK-NEXT:      tir.for c in [0, 8) {
// CHECK:         tir.for i2 in [0, n) parallel {
// CHECK-NEXT:      tir.for k in [0, 16) {

// -----

// A first loop shorter than 16 that is a register tile's rows is split alone: the
// rows run inside the columns, so the loop inside it could not take its part of a
// slice of pairs.
tir.prim_func @rows_outside(%A: !tir.buffer<[8, 4, 512], f32>, %B: !tir.buffer<[4, 512, 64], f32>, %C: !tir.buffer<[8, 4, 64], f32>) {
  tir.for i in [0, 8) {
    tir.for b in [0, 4) {
      tir.for j in [0, 64) {
        %zero = arith.constant 0.000000e+00 : f32
        tir.store %C[i, b, j], %zero : f32
        tir.for k in [0, 512) {
          %c = tir.load %C[i, b, j] : f32
          %a = tir.load %A[i, b, k] : f32
          %x = tir.load %B[b, k, j] : f32
          %p = arith.mulf %a, %x : f32
          %s = arith.addf %c, %p : f32
          tir.store %C[i, b, j], %s : f32
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @rows_outside
// CHECK-NEXT:    tir.for i in [0, 8) parallel {
// CHECK-NEXT:      tir.for b in [0, 4) {

// -----

// A product of one row by weights in panels (relax-pack-weights) splits its columns;
// the tanh of the row it reads before, a local buffer and a 1/16 of the work or less,
// runs whole on every thread (each has its own buffer), its loop not split.
tir.prim_func @prologue(%X: !tir.buffer<[1, 512], f32>, %B: !tir.buffer<[8, 512, 128], f32>, %C: !tir.buffer<[1, 1024], f32>) {
  %T = tir.alloc_buffer : !tir.buffer<[1, 512], f32>
  tir.for i in [0, 1) {
    tir.for k in [0, 512) {
      %x = tir.load %X[i, k] : f32
      %t = math.tanh %x : f32
      tir.store %T[i, k], %t : f32
    }
  }
  tir.for i in [0, 1) {
    tir.for j in [0, 1024) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 512) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %T[i, k] : f32
        %b = tir.load %B[floordiv(j, 128), k, floormod(j, 128)] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @prologue
// CHECK:         tir.for k in [0, 512) {
// CHECK:         tir.for j in [0, 1024) parallel {
// CHECK:           tir.for k in [0, 512) {
