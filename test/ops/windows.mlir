// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the N-d windows: conv3d, the transposed convolutions, 1-D
// and 3-D pooling with dilation (written without `-> result`).

// CHECK-LABEL: relax.func @conv3d
// CHECK-NEXT:    relax.conv3d {{.*}} -> !relax.tensor<[n, 4, d, h - 2, w - 2], f32>
// CHECK-NEXT:    relax.conv3d {{.*}} -> !relax.tensor<[n, 4, floordiv(d - 1, 2) + 1, h, w - 4], f32>
relax.func @conv3d(%x: !relax.tensor<[n, 2, d, h, w], f32>, %k: !relax.tensor<[4, 2, 1, 3, 3], f32>) -> !relax.object {
  %0 = relax.conv3d %x, %k : (!relax.tensor<[n, 2, d, h, w], f32>, !relax.tensor<[4, 2, 1, 3, 3], f32>)
  %1 = relax.conv3d %x, %k {strides = array<i64: 2, 1, 1>, padding = array<i64: 0, 1, 0>, dilation = array<i64: 1, 1, 2>} : (!relax.tensor<[n, 2, d, h, w], f32>, !relax.tensor<[4, 2, 1, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 2, d, h, w], f32>
}

// -----

// Output sizes: (size - 1) * stride + dilation * (kernel - 1) + 1 + output_padding
// less the padding at both ends; the output channels are the weight's second
// dimension times groups.
// CHECK-LABEL: relax.func @conv_transpose
// CHECK-NEXT:    relax.conv_transpose2d {{.*}} -> !relax.tensor<[n, 3, h + 2, w + 2], f32>
// CHECK-NEXT:    relax.conv_transpose2d {{.*}} -> !relax.tensor<[n, 6, h * 2, w * 2], f32>
// CHECK-NEXT:    relax.conv_transpose1d {{.*}} -> !relax.tensor<[n, 3, w * 3], f32>
// CHECK-NEXT:    relax.conv_transpose3d {{.*}} -> !relax.tensor<[n, 3, d + 1, d + 1, d + 1], f32>
relax.func @conv_transpose(%x: !relax.tensor<[n, 4, h, w], f32>, %k: !relax.tensor<[4, 3, 3, 3], f32>, %y: !relax.tensor<[n, 4, w], f32>, %g: !relax.tensor<[4, 3, 4], f32>, %z: !relax.tensor<[n, 4, d, d, d], f32>, %c: !relax.tensor<[4, 3, 2, 2, 2], f32>) -> !relax.object {
  %0 = relax.conv_transpose2d %x, %k : (!relax.tensor<[n, 4, h, w], f32>, !relax.tensor<[4, 3, 3, 3], f32>)
  %1 = relax.conv_transpose2d %x, %k {strides = array<i64: 2>, padding = array<i64: 1>, output_padding = array<i64: 1>, groups = 2 : i64} : (!relax.tensor<[n, 4, h, w], f32>, !relax.tensor<[4, 3, 3, 3], f32>)
  %2 = relax.conv_transpose1d %y, %g {strides = array<i64: 3>, padding = array<i64: 1, 0>} : (!relax.tensor<[n, 4, w], f32>, !relax.tensor<[4, 3, 4], f32>)
  %3 = relax.conv_transpose3d %z, %c : (!relax.tensor<[n, 4, d, d, d], f32>, !relax.tensor<[4, 3, 2, 2, 2], f32>)
  relax.return %x : !relax.tensor<[n, 4, h, w], f32>
}

// -----

// CHECK-LABEL: relax.func @pooling
// CHECK-NEXT:    relax.max_pool1d {{.*}} -> !relax.tensor<[n, 3, floordiv(w - 3, 2) + 1], f32>
// CHECK-NEXT:    relax.avg_pool1d {{.*}} -> !relax.tensor<[n, 3, w], f32>
// CHECK-NEXT:    relax.max_pool3d {{.*}} -> !relax.tensor<[n, 3, d - 1, h - 2, w - 1], f32>
// CHECK-NEXT:    relax.avg_pool3d {{.*}} -> !relax.tensor<[n, 3, floordiv(d, 2), floordiv(h, 2), floordiv(w, 2)], f32>
relax.func @pooling(%x: !relax.tensor<[n, 3, w], f32>, %v: !relax.tensor<[n, 3, d, h, w], f32>) -> !relax.object {
  %0 = relax.max_pool1d %x {pool_size = array<i64: 2>, strides = array<i64: 2>, dilation = array<i64: 2>} : (!relax.tensor<[n, 3, w], f32>)
  %1 = relax.avg_pool1d %x {pool_size = array<i64: 3>, padding = array<i64: 2>, dilation = array<i64: 2>} : (!relax.tensor<[n, 3, w], f32>)
  %2 = relax.max_pool3d %v {pool_size = array<i64: 2>, dilation = array<i64: 1, 2, 1>} : (!relax.tensor<[n, 3, d, h, w], f32>)
  %3 = relax.avg_pool3d %v {pool_size = array<i64: 2>, strides = array<i64: 2>} : (!relax.tensor<[n, 3, d, h, w], f32>)
  relax.return %x : !relax.tensor<[n, 3, w], f32>
}
