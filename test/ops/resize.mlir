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

// -----

// grid_sample: N, C from x, the output positions from the grid (its last axis holds
// the coordinates).
// CHECK-LABEL: relax.func @grid_sample
// CHECK-NEXT:    relax.grid_sample {{.*}} -> !relax.tensor<[n, 3, k, 5], f32>
// CHECK-NEXT:    relax.grid_sample {{.*}} -> !relax.tensor<[n, 3, 2, 2, 2], f32>
relax.func @grid_sample(%x: !relax.tensor<[n, 3, h, w], f32>, %g: !relax.tensor<[n, k, 5, 2], f32>, %v: !relax.tensor<[n, 3, d, h, w], f32>, %u: !relax.tensor<[n, 2, 2, 2, 3], f32>) -> !relax.object {
  %0 = relax.grid_sample %x, %g {mode = "cubic", padding_mode = "border"} : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[n, k, 5, 2], f32>)
  %1 = relax.grid_sample %v, %u {align_corners = true} : (!relax.tensor<[n, 3, d, h, w], f32>, !relax.tensor<[n, 2, 2, 2, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}
