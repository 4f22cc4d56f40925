// RUN: relax-opt %s --split-input-file -p relax-pack-weights | filecheck %s

// A product by a constant [8, 100]: the register tile streams B along the output's
// columns, so B becomes panels of the tile's width R (vectors x vector width) along
// them, zero past column 100, and the kernel reads B[floordiv(j, R), k, floormod(j, R)].
// The rows are symbolic (a batch, or a sequence as BERT's).
// CHECK-LABEL: tir.prim_func @matmul
// CHECK-SAME:    (%A: !tir.buffer<[n, 8], f32>, %B: !tir.buffer<[[[P:[0-9]+]], 8, [[R:[0-9]+]]], f32>, %C: !tir.buffer<[n, 100], f32>)
// CHECK:           %b = tir.load %B[floordiv(j, [[R]]), k, floormod(j, [[R]])] : f32
tir.prim_func @matmul(%A: !tir.buffer<[n, 8], f32>, %B: !tir.buffer<[8, 100], f32>, %C: !tir.buffer<[n, 100], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 100) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 8) {
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

// Both calls pass constants: each is packed (once for the two uses of %w).
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %w = relax.const dense<1.000000e+00> : !relax.tensor<[8, 100], f32>
// CHECK-NEXT:    %w_1 = relax.const dense<{{.*}}> : !relax.tensor<[[[P]], 8, [[R]]], f32>
// CHECK-NEXT:    %v = relax.const dense<2.000000e+00> : !relax.tensor<[8, 100], f32>
// CHECK-NEXT:    %v_1 = relax.const dense<{{.*}}> : !relax.tensor<[[[P]], 8, [[R]]], f32>
// CHECK-NEXT:    %y = relax.call_tir @matmul(%x, %w_1) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[[[P]], 8, [[R]]], f32>) -> !relax.tensor<[n, 100], f32>
// CHECK-NEXT:    %z = relax.call_tir @matmul(%x, %w_1)
// CHECK-NEXT:    %u = relax.call_tir @matmul(%x, %v_1)
relax.func @main(%x: !relax.tensor<[n, 8], f32>) -> !relax.tensor<[n, 100], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[8, 100], f32>
  %v = relax.const dense<2.0> : !relax.tensor<[8, 100], f32>
  %y = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32>
  %z = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32>
  %u = relax.call_tir @matmul(%x, %v) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32>
  relax.return %u : !relax.tensor<[n, 100], f32>
}

// -----

// One call passes an argument: the kernel and the constant stay as they are.
// CHECK-LABEL: tir.prim_func @matmul(%A: !tir.buffer<[n, 8], f32>, %B: !tir.buffer<[8, 100], f32>, %C: !tir.buffer<[n, 100], f32>)
// CHECK:           %b = tir.load %B[k, j] : f32
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %w = relax.const
// CHECK-NEXT:    %y = relax.call_tir @matmul(%x, %w)
// CHECK-NEXT:    %z = relax.call_tir @matmul(%x, %b)
tir.prim_func @matmul(%A: !tir.buffer<[n, 8], f32>, %B: !tir.buffer<[8, 100], f32>, %C: !tir.buffer<[n, 100], f32>) {
  tir.for i in [0, n) {
    tir.for j in [0, 100) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 8) {
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

relax.func @main(%x: !relax.tensor<[n, 8], f32>, %b: !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[8, 100], f32>
  %y = relax.call_tir @matmul(%x, %w) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32>
  %z = relax.call_tir @matmul(%x, %b) : (!relax.tensor<[n, 8], f32>, !relax.tensor<[8, 100], f32>) -> !relax.tensor<[n, 100], f32>
  relax.return %z : !relax.tensor<[n, 100], f32>
}

// -----

// A channels-last 1x1 convolution's HWIO weights [1, 1, 16, 200] with a bias epilogue:
// panels along the output channels; the bias (read by the epilogue) stays.
// CHECK-LABEL: tir.prim_func @conv
// CHECK-SAME:    (%X: !tir.buffer<[2, 4, 4, 16], f32>, %W: !tir.buffer<[[[P:[0-9]+]], 1, 1, 16, [[R:[0-9]+]]], f32>, %bias: !tir.buffer<[200], f32>, %Y: !tir.buffer<[2, 4, 4, 200], f32>)
// CHECK:           %w = tir.load %W[floordiv(o, [[R]]), 0, 0, c, floormod(o, [[R]])] : f32
// CHECK:           %b = tir.load %bias[o] : f32
// CHECK-LABEL: relax.func @main
// CHECK:         relax.call_tir @conv(%x, %w_1, %bias) : (!relax.tensor<[2, 4, 4, 16], f32>, !relax.tensor<[[[P]], 1, 1, 16, [[R]]], f32>, !relax.tensor<[200], f32>)
tir.prim_func @conv(%X: !tir.buffer<[2, 4, 4, 16], f32>, %W: !tir.buffer<[1, 1, 16, 200], f32>, %bias: !tir.buffer<[200], f32>, %Y: !tir.buffer<[2, 4, 4, 200], f32>) {
  tir.for n in [0, 2) {
    tir.for h in [0, 4) {
      tir.for w in [0, 4) {
        tir.for o in [0, 200) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[n, h, w, o], %zero : f32
          tir.for c in [0, 16) {
            %y = tir.load %Y[n, h, w, o] : f32
            %x = tir.load %X[n, h, w, c] : f32
            %w = tir.load %W[0, 0, c, o] : f32
            %p = arith.mulf %x, %w : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[n, h, w, o], %s : f32
          }
        }
      }
    }
  }
  tir.for n in [0, 2) {
    tir.for h in [0, 4) {
      tir.for w in [0, 4) {
        tir.for o in [0, 200) {
          %y = tir.load %Y[n, h, w, o] : f32
          %b = tir.load %bias[o] : f32
          %s = arith.addf %y, %b : f32
          tir.store %Y[n, h, w, o], %s : f32
        }
      }
    }
  }
}

relax.func @main(%x: !relax.tensor<[2, 4, 4, 16], f32>) -> !relax.tensor<[2, 4, 4, 200], f32> {
  %w = relax.const dense<1.0> : !relax.tensor<[1, 1, 16, 200], f32>
  %bias = relax.const dense<1.0> : !relax.tensor<[200], f32>
  %y = relax.call_tir @conv(%x, %w, %bias) : (!relax.tensor<[2, 4, 4, 16], f32>, !relax.tensor<[1, 1, 16, 200], f32>, !relax.tensor<[200], f32>) -> !relax.tensor<[2, 4, 4, 200], f32>
  relax.return %y : !relax.tensor<[2, 4, 4, 200], f32>
}

// -----

// Columns no wider than a panel (the rows of B are then as contiguous as the panels
// would be) stay, and so does the constant the tiles broadcast (A).
// CHECK-LABEL: tir.prim_func @narrow(%A: !tir.buffer<[64, 8], f32>, %B: !tir.buffer<[8, 8], f32>, %C: !tir.buffer<[64, 8], f32>)
// CHECK-LABEL: relax.func @main
// CHECK-NEXT:    %a = relax.const
// CHECK-NEXT:    %w = relax.const
// CHECK-NEXT:    %y = relax.call_tir @narrow(%a, %w) : (!relax.tensor<[64, 8], f32>, !relax.tensor<[8, 8], f32>)
tir.prim_func @narrow(%A: !tir.buffer<[64, 8], f32>, %B: !tir.buffer<[8, 8], f32>, %C: !tir.buffer<[64, 8], f32>) {
  tir.for i in [0, 64) {
    tir.for j in [0, 8) {
      %zero = arith.constant 0.000000e+00 : f32
      tir.store %C[i, j], %zero : f32
      tir.for k in [0, 8) {
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

relax.func @main() -> !relax.tensor<[64, 8], f32> {
  %a = relax.const dense<1.0> : !relax.tensor<[64, 8], f32>
  %w = relax.const dense<1.0> : !relax.tensor<[8, 8], f32>
  %y = relax.call_tir @narrow(%a, %w) : (!relax.tensor<[64, 8], f32>, !relax.tensor<[8, 8], f32>) -> !relax.tensor<[64, 8], f32>
  relax.return %y : !relax.tensor<[64, 8], f32>
}
