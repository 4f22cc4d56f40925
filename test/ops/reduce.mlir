// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the reductions (written without `-> result`).

// CHECK-LABEL: relax.func @reductions
// CHECK-NEXT:    relax.sum {{.*}} -> !relax.tensor<[n, 1, 4], f32>
// CHECK-NEXT:    relax.sum {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.mean {{.*}} -> !relax.tensor<[m], f32>
// CHECK-NEXT:    relax.max {{.*}} -> !relax.tensor<[], f32>
// CHECK-NEXT:    relax.min {{.*}} -> !relax.tensor<[1, 1, 1], f32>
// CHECK-NEXT:    relax.mean {{.*}} -> !relax.tensor<[n, m], i32>
relax.func @reductions(%x: !relax.tensor<[n, m, 4], f32>, %i: !relax.tensor<[n, m, 4], i32>) -> !relax.object {
  %0 = relax.sum %x {axis = array<i64: 1>, keepdims = true} : (!relax.tensor<[n, m, 4], f32>)
  %1 = relax.sum %x {axis = array<i64: 1>} : (!relax.tensor<[n, m, 4], f32>)
  %2 = relax.mean %x {axis = array<i64: -1, 0>, keepdims = false} : (!relax.tensor<[n, m, 4], f32>)
  %3 = relax.max %x : (!relax.tensor<[n, m, 4], f32>)
  %4 = relax.min %x {keepdims = true} : (!relax.tensor<[n, m, 4], f32>)
  %5 = relax.mean %i {axis = array<i64: 2>} : (!relax.tensor<[n, m, 4], i32>)
  relax.return %x : !relax.tensor<[n, m, 4], f32>
}

// -----

// The safety net: a full reduction is a scalar whatever the rank; a known rank is kept.
// CHECK-LABEL: relax.func @safety_net
// CHECK-NEXT:    relax.sum {{.*}} -> !relax.tensor<[], ?>
// CHECK-NEXT:    relax.sum {{.*}} -> !relax.tensor<*, f32>
// CHECK-NEXT:    relax.max {{.*}} -> !relax.tensor<ndim=2, f32>
// CHECK-NEXT:    relax.max {{.*}} -> !relax.tensor<ndim=3, f32>
relax.func @safety_net(%u: !relax.tensor<*, ?>, %v: !relax.tensor<*, f32>, %r: !relax.tensor<ndim=3, f32>) -> !relax.object {
  %0 = relax.sum %u : (!relax.tensor<*, ?>)
  %1 = relax.sum %v {axis = array<i64: 0>} : (!relax.tensor<*, f32>)
  %2 = relax.max %r {axis = array<i64: 0>} : (!relax.tensor<ndim=3, f32>)
  %3 = relax.max %r {axis = array<i64: 0>, keepdims = true} : (!relax.tensor<ndim=3, f32>)
  relax.return %v : !relax.tensor<*, f32>
}

// -----

// prod reduces as sum does; argmax and argmin give i64 positions along one axis, or of
// the flattened tensor without one.
// CHECK-LABEL: relax.func @products_and_positions
// CHECK-NEXT:    relax.prod {{.*}} -> !relax.tensor<[n, 1], f16>
// CHECK-NEXT:    relax.argmax {{.*}} -> !relax.tensor<[n], i64>
// CHECK-NEXT:    relax.argmin {{.*}} -> !relax.tensor<[1, 4], i64>
// CHECK-NEXT:    relax.argmax {{.*}} -> !relax.tensor<[], i64>
// CHECK-NEXT:    relax.argmax {{.*}} -> !relax.tensor<[1, 1], i64>
// CHECK-NEXT:    relax.argmin {{.*}} -> !relax.tensor<ndim=1, i64>
relax.func @products_and_positions(%x: !relax.tensor<[n, 4], f16>, %r: !relax.tensor<ndim=2, i32>) -> !relax.object {
  %0 = relax.prod %x {axis = array<i64: 1>, keepdims = true} : (!relax.tensor<[n, 4], f16>)
  %1 = relax.argmax %x {axis = -1 : i64} : (!relax.tensor<[n, 4], f16>)
  %2 = relax.argmin %x {axis = 0 : i64, keepdims = true, select_last_index = true} : (!relax.tensor<[n, 4], f16>)
  %3 = relax.argmax %x : (!relax.tensor<[n, 4], f16>)
  %4 = relax.argmax %x {keepdims = true} : (!relax.tensor<[n, 4], f16>)
  %5 = relax.argmin %r {axis = 1 : i64} : (!relax.tensor<ndim=2, i32>)
  relax.return %x : !relax.tensor<[n, 4], f16>
}
