// RUN: relax-opt %s --split-input-file -p relax-fold-constant | filecheck %s
// RUN: relax-opt %s --split-input-file -p 'relax-fold-constant{max-elements=2}' | filecheck %s --check-prefix=SMALL

// Operators of constants are evaluated; the rest stays.
// CHECK-LABEL: relax.func @operators
// CHECK-NEXT:    %a = relax.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %b = relax.const dense<[1.000000e+01, 2.000000e+01, 3.000000e+01]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %c = relax.const dense<[1.100000e+01, 2.200000e+01, 3.300000e+01]> : !relax.tensor<[3], f32>
// CHECK-NEXT:    %d = relax.const dense<true> : !relax.tensor<[3], i1>
// CHECK-NEXT:    %d2 = relax.const dense<false> : !relax.tensor<[3], i1>
// CHECK-NEXT:    %e = relax.add %c, %x
// SMALL-LABEL: relax.func @operators
// SMALL:         %c = relax.add %a, %b
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
