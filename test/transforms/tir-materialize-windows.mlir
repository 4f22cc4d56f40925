// RUN: relax-opt %s --split-input-file -p tir-materialize-windows | filecheck %s

// A 3x3 convolution over an 11x11 image: along w its input is contiguous for rows of
// 11 elements only. The window copy lays it out over (n, c, kh, kw, h, w), the
// contraction reads the copy at its own loop variables; the copy keeps the padded load.
tir.prim_func @conv3x3(%X: !tir.buffer<[n, 4, 11, 11], f32>, %W: !tir.buffer<[8, 4, 3, 3], f32>, %Y: !tir.buffer<[n, 8, 11, 11], f32>) {
  tir.for i0 in [0, n) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 11) {
        tir.for i3 in [0, 11) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 4) {
            tir.for r0 in [0, 3) {
              tir.for r1 in [0, 3) {
                %y = tir.load %Y[i0, i1, i2, i3] : f32
                %pad = arith.constant 0.000000e+00 : f32
                %x = tir.load %X[i0, rc, i2 + r0 - 1, i3 + r1 - 1] pad %pad : f32
                %w = tir.load %W[i1, rc, r0, r1] : f32
                %p = arith.mulf %x, %w : f32
                %s = arith.addf %y, %p : f32
                tir.store %Y[i0, i1, i2, i3], %s : f32
              }
            }
          }
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @conv3x3
// CHECK-NEXT:    %[[COPY:.*]] = tir.alloc_buffer : !tir.buffer<[n, 4, 3, 3, 11, 11], f32>
// CHECK-NEXT:    tir.for p0 in [0, n) {
// CHECK-NEXT:      tir.for p1 in [0, 4) {
// CHECK-NEXT:        tir.for p2 in [0, 3) {
// CHECK-NEXT:          tir.for p3 in [0, 3) {
// CHECK-NEXT:            tir.for p4 in [0, 11) {
// CHECK-NEXT:              tir.for p5 in [0, 11) {
// CHECK-NEXT:                %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:                %[[V:.*]] = tir.load %X[p0, p1, p2 + p4 - 1, p3 + p5 - 1] pad %[[PAD]] : f32
// CHECK-NEXT:                tir.store %[[COPY]][p0, p1, p2, p3, p4, p5], %[[V]] : f32
// CHECK:         tir.for i0 in [0, n) {
// CHECK:                       %{{.*}} = tir.load %[[COPY]][i0, rc, r0, r1, i2, i3] : f32
// CHECK-NEXT:                  %{{.*}} = tir.load %W[i1, rc, r0, r1] : f32

// -----

// A strided 1x1 convolution (stride 2): its input is not contiguous along w at all.
tir.prim_func @strided(%X: !tir.buffer<[1, 4, 8, 8], f32>, %W: !tir.buffer<[8, 4], f32>, %Y: !tir.buffer<[1, 8, 4, 4], f32>) {
  tir.for i0 in [0, 1) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 4) {
        tir.for i3 in [0, 4) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 4) {
            %y = tir.load %Y[i0, i1, i2, i3] : f32
            %x = tir.load %X[i0, rc, i2 * 2, i3 * 2] : f32
            %w = tir.load %W[i1, rc] : f32
            %p = arith.mulf %x, %w : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[i0, i1, i2, i3], %s : f32
          }
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @strided
// CHECK-NEXT:    %[[COPY:.*]] = tir.alloc_buffer : !tir.buffer<[1, 4, 4, 4], f32>
// CHECK:                 %[[V:.*]] = tir.load %X[p0, p1, p2 * 2, p3 * 2] : f32
// CHECK-NEXT:            tir.store %[[COPY]][p0, p1, p2, p3], %[[V]] : f32
// CHECK:                 %{{.*}} = tir.load %[[COPY]][i0, rc, i2, i3] : f32

// -----

// Left as they are: a 1x1 convolution contiguous along its 7x7 image (its rows run as
// one vector axis); a 3x3 convolution along 56-element rows (56 of 64 lanes filled);
// a float64 one (register tiles are float32); one over a 2x2 image (4 lanes).
tir.prim_func @direct(%X: !tir.buffer<[1, 4, 7, 7], f32>, %W: !tir.buffer<[8, 4], f32>, %Y: !tir.buffer<[1, 8, 7, 7], f32>) {
  tir.for i0 in [0, 1) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 7) {
        tir.for i3 in [0, 7) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 4) {
            %y = tir.load %Y[i0, i1, i2, i3] : f32
            %x = tir.load %X[i0, rc, i2, i3] : f32
            %w = tir.load %W[i1, rc] : f32
            %p = arith.mulf %x, %w : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[i0, i1, i2, i3], %s : f32
          }
        }
      }
    }
  }
}
tir.prim_func @wide(%X: !tir.buffer<[1, 2, 56, 56], f32>, %W: !tir.buffer<[4, 2, 3, 3], f32>, %Y: !tir.buffer<[1, 4, 56, 56], f32>) {
  tir.for i0 in [0, 1) {
    tir.for i1 in [0, 4) {
      tir.for i2 in [0, 56) {
        tir.for i3 in [0, 56) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 2) {
            tir.for r0 in [0, 3) {
              tir.for r1 in [0, 3) {
                %y = tir.load %Y[i0, i1, i2, i3] : f32
                %pad = arith.constant 0.000000e+00 : f32
                %x = tir.load %X[i0, rc, i2 + r0 - 1, i3 + r1 - 1] pad %pad : f32
                %w = tir.load %W[i1, rc, r0, r1] : f32
                %p = arith.mulf %x, %w : f32
                %s = arith.addf %y, %p : f32
                tir.store %Y[i0, i1, i2, i3], %s : f32
              }
            }
          }
        }
      }
    }
  }
}
tir.prim_func @double(%X: !tir.buffer<[1, 4, 8, 8], f64>, %W: !tir.buffer<[8, 4], f64>, %Y: !tir.buffer<[1, 8, 4, 4], f64>) {
  tir.for i0 in [0, 1) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 4) {
        tir.for i3 in [0, 4) {
          %zero = arith.constant 0.000000e+00 : f64
          tir.store %Y[i0, i1, i2, i3], %zero : f64
          tir.for rc in [0, 4) {
            %y = tir.load %Y[i0, i1, i2, i3] : f64
            %x = tir.load %X[i0, rc, i2 * 2, i3 * 2] : f64
            %w = tir.load %W[i1, rc] : f64
            %p = arith.mulf %x, %w : f64
            %s = arith.addf %y, %p : f64
            tir.store %Y[i0, i1, i2, i3], %s : f64
          }
        }
      }
    }
  }
}
tir.prim_func @tiny(%X: !tir.buffer<[1, 4, 4, 4], f32>, %W: !tir.buffer<[8, 4], f32>, %Y: !tir.buffer<[1, 8, 2, 2], f32>) {
  tir.for i0 in [0, 1) {
    tir.for i1 in [0, 8) {
      tir.for i2 in [0, 2) {
        tir.for i3 in [0, 2) {
          %zero = arith.constant 0.000000e+00 : f32
          tir.store %Y[i0, i1, i2, i3], %zero : f32
          tir.for rc in [0, 4) {
            %y = tir.load %Y[i0, i1, i2, i3] : f32
            %x = tir.load %X[i0, rc, i2 * 2, i3 * 2] : f32
            %w = tir.load %W[i1, rc] : f32
            %p = arith.mulf %x, %w : f32
            %s = arith.addf %y, %p : f32
            tir.store %Y[i0, i1, i2, i3], %s : f32
          }
        }
      }
    }
  }
}

// CHECK-LABEL: tir.prim_func @direct
// CHECK-NEXT:    tir.for i0 in [0, 1) {
// CHECK-LABEL: tir.prim_func @wide
// CHECK-NEXT:    tir.for i0 in [0, 1) {
// CHECK-LABEL: tir.prim_func @double
// CHECK-NEXT:    tir.for i0 in [0, 1) {
// CHECK-LABEL: tir.prim_func @tiny
// CHECK-NEXT:    tir.for i0 in [0, 1) {
// CHECK-NOT:     alloc_buffer
