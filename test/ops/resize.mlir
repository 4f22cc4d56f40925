// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of relax.resize: the shape operand's dims (written without
// `-> result`); printing keeps the properties as written.

// CHECK-LABEL: relax.func @resize
// CHECK:         relax.resize %x, %{{.*}} {mode = "linear", axes = array<i64: 2, 3>} : {{.*}} -> !relax.tensor<[n, 3, h * 2, 7], f32>
// CHECK:         relax.resize %x, %{{.*}}, %s {mode = "nearest", axes = array<i64: 3>, nearest_mode = "floor"} : {{.*}} -> !relax.tensor<[n, 3, h, w * 2], f32>
// CHECK:         relax.resize %x, %{{.*}}, %s, %r {mode = "cubic", axes = array<i64: 3>, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+00 : f64} : {{.*}} -> !relax.tensor<[n, 3, h, 5], f32>
// CHECK:         relax.resize %u, %{{.*}} {mode = "nearest"} : {{.*}} -> !relax.tensor<[n, 3, 4, 4], i8>
relax.func @resize(%x: !relax.tensor<[n, 3, h, w], f32>, %s: !relax.tensor<[1], f64>, %r: !relax.tensor<[2], f32>, %u: !relax.tensor<[n, 3, 2, 2], i8>) -> !relax.object {
  %a = relax.shape [n, 3, 2 * h, 7]
  %0 = relax.resize %x, %a {mode = "linear", axes = array<i64: 2, 3>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.shape<[n, 3, 2 * h, 7]>)
  %b = relax.shape [n, 3, h, 2 * w]
  %1 = relax.resize %x, %b, %s {mode = "nearest", axes = array<i64: 3>, nearest_mode = "floor"} : (!relax.tensor<[n, 3, h, w], f32>, !relax.shape<[n, 3, h, 2 * w]>, !relax.tensor<[1], f64>)
  %c = relax.shape [n, 3, h, 5]
  %2 = relax.resize %x, %c, %s, %r {mode = "cubic", axes = array<i64: 3>, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.0 : f64} : (!relax.tensor<[n, 3, h, w], f32>, !relax.shape<[n, 3, h, 5]>, !relax.tensor<[1], f64>, !relax.tensor<[2], f32>)
  %d = relax.shape [n, 3, 4, 4]
  %3 = relax.resize %u, %d {mode = "nearest"} : (!relax.tensor<[n, 3, 2, 2], i8>, !relax.shape<[n, 3, 4, 4]>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}
