// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the layout operators (written without `-> result`).

// broadcast_to: any element type, missing leading axes added, size-1 axes repeated.
// CHECK-LABEL: relax.func @broadcast_to
// CHECK:         relax.broadcast_to {{.*}} -> !relax.tensor<[n, m, 4], i1>
// CHECK:         relax.broadcast_to {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK:         relax.broadcast_to {{.*}} -> !relax.tensor<ndim=2, f32>
relax.func @broadcast_to(%b: !relax.tensor<[1, 4], i1>, %x: !relax.tensor<[n, 1], f32>, %s: !relax.shape<ndim=2>, %y: !relax.tensor<[m], f32>) -> !relax.object {
  %s0 = relax.shape [n, m, 4] : !relax.shape<[n, m, 4]>
  %0 = relax.broadcast_to %b, %s0 : (!relax.tensor<[1, 4], i1>, !relax.shape<[n, m, 4]>)
  %s1 = relax.shape [n, m] : !relax.shape<[n, m]>
  %1 = relax.broadcast_to %x, %s1 : (!relax.tensor<[n, 1], f32>, !relax.shape<[n, m]>)
  %2 = relax.broadcast_to %x, %s : (!relax.tensor<[n, 1], f32>, !relax.shape<ndim=2>)
  relax.return %b : !relax.tensor<[1, 4], i1>
}

// -----

// pad: before and after counts per axis; slice_scatter: the shape of x.
// CHECK-LABEL: relax.func @pad_scatter
// CHECK:         relax.pad {{.*}} -> !relax.tensor<[n + 3, 4], f32>
// CHECK:         relax.pad {{.*}} -> !relax.tensor<ndim=2, f32>
// CHECK:         relax.slice_scatter {{.*}} -> !relax.tensor<[n, 4], f32>
relax.func @pad_scatter(%x: !relax.tensor<[n, 4], f32>, %u: !relax.tensor<ndim=2, f32>, %s: !relax.tensor<[n, 2], f32>) -> !relax.object {
  %f = relax.const dense<0.0> : !relax.tensor<[], f32>
  %0 = relax.pad %x, %f {pad_width = array<i64: 1, 2, 0, 0>} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[], f32>)
  %1 = relax.pad %u, %f {pad_width = array<i64: 1, 2, 0, 0>} : (!relax.tensor<ndim=2, f32>, !relax.tensor<[], f32>)
  %2 = relax.slice_scatter %x, %s {axis = 1 : i64, begin = 1 : i64, step = 2 : i64} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 2], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}
