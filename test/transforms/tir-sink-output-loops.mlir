// RUN: relax-opt %s --split-input-file -p tir-sink-output-loops | filecheck %s

// A 1x1 convolution over a 2x2 image (too small for register tiles): the reduction
// over channels reads %X an image apart. The output loops whose variables are the
// output's last indices and that run as one loop over the body (h and w: rows of both
// %Y and %X, not k, which %X does not follow) sink inside it; the initialization keeps
// them all.
tir.prim_func @conv(%X: !tir.buffer<[2, 24, 2, 2], f32>, %W: !tir.buffer<[8, 24], f32>, %Y: !tir.buffer<[2, 8, 2, 2], f32>) {
  tir.for n in [0, 2) {
    tir.for k in [0, 8) {
      tir.for h in [0, 2) {
        tir.for w in [0, 2) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[n, k, h, w], %zero : f32
          tir.for c in [0, 24) {
            %y = tir.load %Y[n, k, h, w] : f32
            %x = tir.load %X[n, c, h, w] : f32
            %f = tir.load %W[k, c] : f32
            %p = arith.mulf %x, %f : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[n, k, h, w], %s : f32
          }
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @conv
// CHECK-NEXT:    tir.for n in [0, 2) {
// CHECK-NEXT:      tir.for k in [0, 8) {
// CHECK-NEXT:        tir.for h in [0, 2) {
// CHECK-NEXT:          tir.for w in [0, 2) {
// CHECK-NEXT:            %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            tir.store %Y[n, k, h, w], %{{.*}} : f32
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        tir.for c in [0, 24) {
// CHECK-NEXT:          tir.for h in [0, 2) {
// CHECK-NEXT:            tir.for w in [0, 2) {
// CHECK-NEXT:              %{{.*}} = tir.load %Y[n, k, h, w] : f32
// CHECK-NEXT:              %{{.*}} = tir.load %X[n, c, h, w] : f32
// CHECK:                   tir.store %Y[n, k, h, w], %{{.*}} : f32
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// -----

// A float64 matmul over B[k, j] (register tiles are float32): the innermost output
// loop sinks whatever its extent (more than the 4,096 elements that bound the
// others); i does not (%A does not follow it).
tir.prim_func @matmul(%A: !tir.buffer<[m, 64], f64>, %B: !tir.buffer<[64, 5000], f64>, %C: !tir.buffer<[m, 5000], f64>) {
  tir.for i in [0, m) {
    tir.for j in [0, 5000) {
      %zero = arith.constant 0.000000e+00 : f64
      tir.store %C[i, j], %zero : f64
      tir.for k in [0, 64) {
        %c = tir.load %C[i, j] : f64
        %a = tir.load %A[i, k] : f64
        %b = tir.load %B[k, j] : f64
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %c, %p : f64
        tir.store %C[i, j], %s : f64
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @matmul
// CHECK-NEXT:    tir.for i in [0, m) {
// CHECK-NEXT:      tir.for j in [0, 5000) {
// CHECK-NEXT:        %{{.*}} = arith.constant
// CHECK-NEXT:        tir.store %C[i, j]
// CHECK-NEXT:      }
// CHECK-NEXT:      tir.for k in [0, 64) {
// CHECK-NEXT:        tir.for j in [0, 5000) {
// CHECK-NEXT:          %{{.*}} = tir.load %C[i, j] : f64

// -----

// Reductions along rows vectorize as they are and stay: a row sum, and a product with
// the second operand transposed (A[i, k] . B[j, k]).
tir.prim_func @rows(%X: !tir.buffer<[8, 64], f32>, %A: !tir.buffer<[8, 64], f32>, %B: !tir.buffer<[8, 64], f32>, %S: !tir.buffer<[8], f32>, %C: !tir.buffer<[8, 8], f32>) {
  tir.for i in [0, 8) {
    %zero = arith.constant 0.000000e+00 : f32
    tir.store %S[i], %zero : f32
    tir.for r in [0, 64) {
      %s = tir.load %S[i] : f32
      %x = tir.load %X[i, r] : f32
      %t = arith.addf %s, %x : f32
      tir.store %S[i], %t : f32
    }
  }
  tir.for i in [0, 8) {
    tir.for j in [0, 8) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 64) {
        %c = tir.load %C[i, j] : f32
        %a = tir.load %A[i, k] : f32
        %b = tir.load %B[j, k] : f32
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        tir.store %C[i, j], %s : f32
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @rows
// CHECK-NEXT:    tir.for i in [0, 8) {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK-NEXT:      tir.store %S[i]
// CHECK-NEXT:      tir.for r in [0, 64) {
// CHECK:         tir.for i in [0, 8) {
// CHECK-NEXT:      tir.for j in [0, 8) {
// CHECK-NEXT:        %{{.*}} = arith.constant
// CHECK-NEXT:        tir.store %C[i, j]
// CHECK-NEXT:        tir.for k in [0, 64) {

// -----

// Not a reduction into the element the loops initialize (it also writes another
// element of the output): left as it is.
tir.prim_func @shifted(%X: !tir.buffer<[4, 16], f32>, %Y: !tir.buffer<[5, 16], f32>) {
  tir.for j in [0, 16) {
    %zero = arith.constant 0.000000e+00 : f32
    tir.store %Y[0, j], %zero : f32
    tir.for i in [0, 4) {
      %x = tir.load %X[i, j] : f32
      tir.store %Y[i + 1, j], %x : f32
    }
  }
}

// CHECK-LABEL: tir.prim_func @shifted
// CHECK-NEXT:    tir.for j in [0, 16) {
// CHECK-NEXT:      %{{.*}} = arith.constant
// CHECK-NEXT:      tir.store %Y[0, j]
// CHECK-NEXT:      tir.for i in [0, 4) {


// -----

// A float32 1x1 convolution over a 4x4 image runs in register tiles (tir-to-llvm):
// its loops are left as they are.
tir.prim_func @tiled(%X: !tir.buffer<[2, 24, 4, 4], f32>, %W: !tir.buffer<[8, 24], f32>, %Y: !tir.buffer<[2, 8, 4, 4], f32>) {
  tir.for n in [0, 2) {
    tir.for k in [0, 8) {
      tir.for h in [0, 4) {
        tir.for w in [0, 4) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[n, k, h, w], %zero : f32
          tir.for c in [0, 24) {
            %y = tir.load %Y[n, k, h, w] : f32
            %x = tir.load %X[n, c, h, w] : f32
            %f = tir.load %W[k, c] : f32
            %p = arith.mulf %x, %f : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[n, k, h, w], %s : f32
          }
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @tiled
// CHECK-NEXT:    tir.for n in [0, 2) {
// CHECK-NEXT:      tir.for k in [0, 8) {
// CHECK-NEXT:        tir.for h in [0, 4) {
// CHECK-NEXT:          tir.for w in [0, 4) {
// CHECK-NEXT:            %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:            tir.store %Y[n, k, h, w], %{{.*}} : f32
// CHECK-NEXT:            tir.for c in [0, 24) {
