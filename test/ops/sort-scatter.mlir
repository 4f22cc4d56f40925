// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the float maps of ops/math.py, argsort and scatter_elements
// (written without `-> result`).

// CHECK-LABEL: relax.func @maps
// CHECK-NEXT:    relax.tan {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.atanh {{.*}} -> !relax.tensor<ndim=2, f16>
// CHECK-NEXT:    relax.round {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.log1p {{.*}} -> !relax.tensor<*, f64>
relax.func @maps(%x: !relax.tensor<[n, 4], f32>, %h: !relax.tensor<ndim=2, f16>, %d: !relax.tensor<*, f64>) -> !relax.object {
  %0 = relax.tan %x : (!relax.tensor<[n, 4], f32>)
  %1 = relax.atanh %h : (!relax.tensor<ndim=2, f16>)
  %2 = relax.round %x : (!relax.tensor<[n, 4], f32>)
  %3 = relax.log1p %d : (!relax.tensor<*, f64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

// argsort gives i64 positions of the shape of x, of any element type.
// CHECK-LABEL: relax.func @argsort
// CHECK-NEXT:    relax.argsort {{.*}} -> !relax.tensor<[n, 4], i64>
// CHECK-NEXT:    relax.argsort {{.*}} -> !relax.tensor<ndim=2, i64>
// CHECK-NEXT:    relax.argsort {{.*}} -> !relax.tensor<[], i64>
relax.func @argsort(%x: !relax.tensor<[n, 4], i1>, %r: !relax.tensor<ndim=2, f32>, %s: !relax.tensor<[], f32>) -> !relax.object {
  %0 = relax.argsort %x {axis = 0 : i64, descending = true} : (!relax.tensor<[n, 4], i1>)
  %1 = relax.argsort %r : (!relax.tensor<ndim=2, f32>)
  %2 = relax.argsort %s : (!relax.tensor<[], f32>)
  relax.return %x : !relax.tensor<[n, 4], i1>
}

// -----

// scatter_elements has the type of x; indices no larger than x off the axis (a run-time
// check when undecided), updates of the shape of indices.
// CHECK-LABEL: relax.func @scatter
// CHECK-NEXT:    relax.scatter_elements {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.scatter_elements {{.*}} -> !relax.tensor<ndim=2, f32>
relax.func @scatter(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[m, k], i8>, %u: !relax.tensor<[m, k], f32>, %r: !relax.tensor<ndim=2, f32>) -> !relax.object {
  %0 = relax.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "max"} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[m, k], i8>, !relax.tensor<[m, k], f32>)
  %1 = relax.scatter_elements %r, %i, %u : (!relax.tensor<ndim=2, f32>, !relax.tensor<[m, k], i8>, !relax.tensor<[m, k], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}
