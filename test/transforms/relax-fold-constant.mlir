// RUN: relax-opt %s --split-input-file -p relax-fold-constant | filecheck %s
// RUN: relax-opt %s --split-input-file -p 'relax-fold-constant{max-elements=1}' | filecheck %s --check-prefix=SMALL

// Operators of constants are evaluated; the rest stays.
// CHECK-LABEL: relax.func @operators
// CHECK-NEXT:    %a = relax.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %b = relax.const dense<[1.000000e+01, 2.000000e+01, 3.000000e+01]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %c = relax.const dense<[1.100000e+01, 2.200000e+01, 3.300000e+01]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %d = relax.const dense<true> : !relax.tensor<[3], i1>
// CHECK-NEXT:    %d2 = relax.const dense<false> : !relax.tensor<[3], i1>
// CHECK-NEXT:    %e = relax.add %c, %x
relax.func @operators(%x: !relax.tensor<[3], f32>) -> !relax.tensor<[3], f32> {
  %a = relax.const dense<[1.0, 2.0, 3.0]> : !relax.tensor<[3], f32>
  %b = relax.const dense<[10.0, 20.0, 30.0]> : !relax.tensor<[3], f32>
  %c = relax.add %a, %b : (!relax.tensor<[3], f32>, !relax.tensor<[3], f32>)
  %d = relax.less %a, %c : (!relax.tensor<[3], f32>, !relax.tensor<[3], f32>)
  %d2 = relax.less %c, %b : (!relax.tensor<[3], f32>, !relax.tensor<[3], f32>)
  %e = relax.add %c, %x : (!relax.tensor<[3], f32>, !relax.tensor<[3], f32>)
  relax.return %e : !relax.tensor<[3], f32>
}

// -----

// A result larger than max-elements and than every constant operand stays unfolded;
// one no larger than an operand is folded (weights folded with weights).
// CHECK-LABEL: relax.func @bound
// CHECK:         %outer = relax.const dense<{{\[}}[1.000000e+00, 2.000000e+00], [2.000000e+00, 4.000000e+00]]>
// SMALL-LABEL: relax.func @bound
// SMALL:         %doubled = relax.const dense<[2.000000e+00, 4.000000e+00]>
// SMALL:         %outer = relax.multiply %col, %a
relax.func @bound() -> !relax.tensor<[2, 2], f32> {
  %a = relax.const dense<[1.0, 2.0]> : !relax.tensor<[2], f32>
  %col = relax.const dense<[[1.0], [2.0]]> : !relax.tensor<[2, 1], f32>
  %doubled = relax.add %a, %a : (!relax.tensor<[2], f32>, !relax.tensor<[2], f32>)
  %outer = relax.multiply %col, %a : (!relax.tensor<[2, 1], f32>, !relax.tensor<[2], f32>)
  relax.return %outer : !relax.tensor<[2, 2], f32>
}

// -----

// Shapes: shape_of of a known shape, reshape with a static shape value, and a
// match_shape that provably holds and binds nothing new.
// CHECK-LABEL: relax.func @shapes
// CHECK-NEXT:    %s = relax.shape [n, 4] : !relax.shape<[n, 4]>
// CHECK:         %r = relax.const dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : !relax.tensor<[2, 2], f32>
// CHECK-NEXT:    %m2 = relax.match_shape %x [k, 4]
// CHECK-NEXT:    relax.return %x
relax.func @shapes(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %s = relax.shape_of %x : (!relax.tensor<[n, 4], f32>)
  %c = relax.const dense<[1.0, 2.0, 3.0, 4.0]> : !relax.tensor<[4], f32>
  %two = relax.shape [2, 2]
  %r = relax.reshape %c, %two : (!relax.tensor<[4], f32>, !relax.shape<[2, 2]>)
  %m = relax.match_shape %x [n, 4] : (!relax.tensor<[n, 4], f32>)
  %m2 = relax.match_shape %x [k, 4] : (!relax.tensor<[n, 4], f32>)
  relax.return %m : !relax.tensor<[n, 4], f32>
}

// -----

// A scale along the output channels of a convolution with constant weights is folded
// into the weights, also past a constant bias (a batch norm after a convolution).
// CHECK-LABEL: relax.func @conv_scale
// CHECK:         %s = relax.const
// CHECK-NEXT:    %0 = relax.const dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}-3.000000e+00]]]]> : !relax.tensor<[2, 1, 1, 1], f32>
// CHECK-NEXT:    %c = relax.conv2d %x, %0
// CHECK-NEXT:    %1 = relax.const dense<{{\[\[\[}}1.000000e+01]], {{\[\[}}-1.500000e+00]]]> : !relax.tensor<[2, 1, 1], f32>
// CHECK-NEXT:    %cb = relax.add %c, %1
// CHECK-NEXT:    relax.return %cb
relax.func @conv_scale(%x: !relax.tensor<[n, 1, 4, 4], f32>) -> !relax.tensor<[n, 2, 4, 4], f32> {
  %w = relax.const dense<[[[[1.0]]], [[[1.5]]]]> : !relax.tensor<[2, 1, 1, 1], f32>
  %b = relax.const dense<[[[5.0]], [[0.75]]]> : !relax.tensor<[2, 1, 1], f32>
  %s = relax.const dense<[[[2.0]], [[-2.0]]]> : !relax.tensor<[2, 1, 1], f32>
  %c = relax.conv2d %x, %w : (!relax.tensor<[n, 1, 4, 4], f32>, !relax.tensor<[2, 1, 1, 1], f32>)
  %cb = relax.add %c, %b : (!relax.tensor<[n, 2, 4, 4], f32>, !relax.tensor<[2, 1, 1], f32>)
  %d = relax.multiply %cb, %s : (!relax.tensor<[n, 2, 4, 4], f32>, !relax.tensor<[2, 1, 1], f32>)
  relax.return %d : !relax.tensor<[n, 2, 4, 4], f32>
}

// -----

// matmul: along the last axis. Not folded: a scale that varies along another axis, a
// product used twice, integer weights.
// CHECK-LABEL: relax.func @matmul_scale
// CHECK:         %rows = relax.const
// CHECK-NEXT:    %0 = relax.const dense<{{\[}}[3.000000e+00, 8.000000e+00]]> : !relax.tensor<[1, 2], f32>
// CHECK-NEXT:    %m = relax.matmul %x, %0
// CHECK-NEXT:    %r = relax.multiply %m, %rows
// CHECK-NEXT:    %t = relax.matmul %x, %w
// CHECK-NEXT:    %u = relax.multiply %t, %s
// CHECK-NEXT:    %v = relax.add %u, %t
// CHECK:         %i = relax.matmul %xi, %wi
// CHECK-NEXT:    %j = relax.multiply %i, %si
relax.func @matmul_scale(%x: !relax.tensor<[3, 1], f32>, %xi: !relax.tensor<[3, 1], i32>) -> !relax.tuple<!relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], i32>> {
  %w = relax.const dense<[[1.0, 2.0]]> : !relax.tensor<[1, 2], f32>
  %s = relax.const dense<[3.0, 4.0]> : !relax.tensor<[2], f32>
  %rows = relax.const dense<[[1.0], [2.0], [3.0]]> : !relax.tensor<[3, 1], f32>
  %m = relax.matmul %x, %w : (!relax.tensor<[3, 1], f32>, !relax.tensor<[1, 2], f32>)
  %ms = relax.multiply %s, %m : (!relax.tensor<[2], f32>, !relax.tensor<[3, 2], f32>)
  %r = relax.multiply %ms, %rows : (!relax.tensor<[3, 2], f32>, !relax.tensor<[3, 1], f32>)
  %t = relax.matmul %x, %w : (!relax.tensor<[3, 1], f32>, !relax.tensor<[1, 2], f32>)
  %u = relax.multiply %t, %s : (!relax.tensor<[3, 2], f32>, !relax.tensor<[2], f32>)
  %v = relax.add %u, %t : (!relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], f32>)
  %wi = relax.const dense<[[1, 2]]> : !relax.tensor<[1, 2], i32>
  %si = relax.const dense<[3, 4]> : !relax.tensor<[2], i32>
  %i = relax.matmul %xi, %wi : (!relax.tensor<[3, 1], i32>, !relax.tensor<[1, 2], i32>)
  %j = relax.multiply %i, %si : (!relax.tensor<[3, 2], i32>, !relax.tensor<[2], i32>)
  %out = relax.tuple %r, %v, %j : (!relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], i32>)
  relax.return %out : !relax.tuple<!relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], f32>, !relax.tensor<[3, 2], i32>>
}

// -----

// Kernel taps that read padding at every output position are cut from constant
// weights, with the padding they needed: a 3x3 window with padding 1 over a 1x1 image
// keeps its centre tap; over 1x2, stride 2, the centre row and its two right columns.
// Not cut: a tap whose weight is not finite (inf * 0 is NaN), weights not constant.
// CHECK-LABEL: relax.func @padding_taps
// CHECK:         %[[C:.*]] = relax.const dense<5.000000e+00> : !relax.tensor<[1, 1, 1, 1], f32>
// CHECK-NEXT:    %a = relax.conv2d %x, %[[C]] {padding = array<i64: 0, 0, 0, 0>}
// CHECK:         %[[R:.*]] = relax.const dense<{{\[\[\[\[}}5.000000e+00, 6.000000e+00]]]]> : !relax.tensor<[1, 1, 1, 2], f32>
// CHECK-NEXT:    %b = relax.conv2d %y, %[[R]] {padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK-NEXT:    %c = relax.conv2d %x, %inf {padding = array<i64: 1, 1>}
// CHECK-NEXT:    %d = relax.conv2d %x, %v {padding = array<i64: 1, 1>}
relax.func @padding_taps(%x: !relax.tensor<[n, 1, 1, 1], f32>, %y: !relax.tensor<[n, 1, 1, 2], f32>, %v: !relax.tensor<[1, 1, 3, 3], f32>) -> !relax.tuple<!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>> {
  %w = relax.const dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : !relax.tensor<[1, 1, 3, 3], f32>
  %inf = relax.const dense<[[[[0x7F800000, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : !relax.tensor<[1, 1, 3, 3], f32>
  %a = relax.conv2d %x, %w {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[1, 1, 3, 3], f32>)
  %b = relax.conv2d %y, %w {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (!relax.tensor<[n, 1, 1, 2], f32>, !relax.tensor<[1, 1, 3, 3], f32>)
  %c = relax.conv2d %x, %inf {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[1, 1, 3, 3], f32>)
  %d = relax.conv2d %x, %v {padding = array<i64: 1, 1>} : (!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[1, 1, 3, 3], f32>)
  %t = relax.tuple %a, %b, %c, %d : (!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>)
  relax.return %t : !relax.tuple<!relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>, !relax.tensor<[n, 1, 1, 1], f32>>
}

// -----

// An operator of constants that returns a tuple (split) becomes a relax.tuple of
// constants, and relax.get_item of a relax.tuple is the element: the users of the
// parts see constants (a GRU's gate biases, split once at compile time).
// CHECK-LABEL: relax.func @split_constant
// CHECK:         %[[A:.*]] = relax.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : !relax.tensor<[1, 4], f32>
// CHECK-NEXT:    %[[B:.*]] = relax.const dense<{{\[\[}}5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]> : !relax.tensor<[1, 4], f32>
// CHECK-NEXT:    %{{.*}} = relax.tuple %[[A]], %[[B]]
// CHECK-NEXT:    %s = relax.add %x, %[[A]]
// CHECK-NEXT:    %r = relax.multiply %s, %[[B]]
relax.func @split_constant(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  %c = relax.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : !relax.tensor<[2, 4], f32>
  %t = relax.split %c {indices_or_sections = 2 : i64} : (!relax.tensor<[2, 4], f32>)
  %a = relax.get_item %t[0] : (!relax.tuple<!relax.tensor<[1, 4], f32>, !relax.tensor<[1, 4], f32>>)
  %b = relax.get_item %t[1] : (!relax.tuple<!relax.tensor<[1, 4], f32>, !relax.tensor<[1, 4], f32>>)
  %s = relax.add %x, %a : (!relax.tensor<[n, 4], f32>, !relax.tensor<[1, 4], f32>)
  %r = relax.multiply %s, %b : (!relax.tensor<[n, 4], f32>, !relax.tensor<[1, 4], f32>)
  relax.return %r : !relax.tensor<[n, 4], f32>
}
