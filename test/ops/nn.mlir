// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the neural-network operators (written without `-> result`).

// CHECK-LABEL: relax.func @normalisation
// CHECK-NEXT:    relax.softmax {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.log_softmax {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.layer_norm {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.softmax {{.*}} -> !relax.tensor<*, f16>
relax.func @normalisation(%x: !relax.tensor<[n, m], f32>, %g: !relax.tensor<[m], f32>, %u: !relax.tensor<*, f16>) -> !relax.object {
  %0 = relax.softmax %x {axis = 0 : i64} : (!relax.tensor<[n, m], f32>)
  %1 = relax.log_softmax %x : (!relax.tensor<[n, m], f32>)
  %2 = relax.layer_norm %x, %g, %g {axes = array<i64: -1>, epsilon = 1.000000e-05 : f32} : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>, !relax.tensor<[m], f32>)
  %3 = relax.softmax %u : (!relax.tensor<*, f16>)
  relax.return %x : !relax.tensor<[n, m], f32>
}

// -----

// Output sizes: floordiv(size + padding - dilation * (kernel - 1) - 1, stride) + 1,
// simplified where it can be (a 3x3 kernel with padding 1 keeps h and w).
// CHECK-LABEL: relax.func @convolution
// CHECK-NEXT:    relax.conv2d {{.*}} -> !relax.tensor<[n, 8, h, w], f32>
// CHECK-NEXT:    relax.conv2d {{.*}} -> !relax.tensor<[n, 8, floordiv(h - 1, 2) + 1, floordiv(w - 1, 2) + 1], f32>
// CHECK-NEXT:    relax.conv2d {{.*}} -> !relax.tensor<[n, 8, h - 4, w + 2], f32>
// CHECK-NEXT:    relax.conv1d {{.*}} -> !relax.tensor<[n, 6, w - 2], f32>
// CHECK-NEXT:    relax.conv2d {{.*}} -> !relax.tensor<ndim=4, f32>
relax.func @convolution(%x: !relax.tensor<[n, 3, h, w], f32>, %k: !relax.tensor<[8, 3, 3, 3], f32>, %y: !relax.tensor<[n, 4, w], f32>, %g: !relax.tensor<[6, 2, 3], f32>, %u: !relax.tensor<*, f32>) -> !relax.object {
  %0 = relax.conv2d %x, %k {padding = array<i64: 1>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  %1 = relax.conv2d %x, %k {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  %2 = relax.conv2d %x, %k {padding = array<i64: 0, 1, 0, 3>, dilation = array<i64: 2, 1>} : (!relax.tensor<[n, 3, h, w], f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  %3 = relax.conv1d %y, %g {groups = 2 : i64} : (!relax.tensor<[n, 4, w], f32>, !relax.tensor<[6, 2, 3], f32>)
  %4 = relax.conv2d %u, %k : (!relax.tensor<*, f32>, !relax.tensor<[8, 3, 3, 3], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}

// -----

// CHECK-LABEL: relax.func @pooling
// CHECK-NEXT:    relax.max_pool2d {{.*}} -> !relax.tensor<[n, 3, floordiv(h, 2), floordiv(w, 2)], f32>
// CHECK-NEXT:    relax.avg_pool2d {{.*}} -> !relax.tensor<[n, 3, h, w], f32>
// CHECK-NEXT:    relax.avg_pool2d {{.*}} -> !relax.tensor<[1, 3, 3, 3], f32>
relax.func @pooling(%x: !relax.tensor<[n, 3, h, w], f32>, %s: !relax.tensor<[1, 3, 7, 7], f32>) -> !relax.object {
  %0 = relax.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (!relax.tensor<[n, 3, h, w], f32>)
  %1 = relax.avg_pool2d %x {pool_size = array<i64: 3>, padding = array<i64: 1>} : (!relax.tensor<[n, 3, h, w], f32>)
  %2 = relax.avg_pool2d %s {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (!relax.tensor<[1, 3, 7, 7], f32>)
  relax.return %x : !relax.tensor<[n, 3, h, w], f32>
}
