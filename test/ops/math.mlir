// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the math, scan and gather operators (written without
// `-> result`).

// CHECK-LABEL: relax.func @maps
// CHECK-NEXT:    relax.sin {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.cos {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.erf {{.*}} -> !relax.tensor<ndim=2, f16>
// CHECK-NEXT:    relax.isnan {{.*}} -> !relax.tensor<[n, 4], i1>
// CHECK-NEXT:    relax.fmod {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.bitwise_and {{.*}} -> !relax.tensor<[n, 4], i1>
// CHECK-NEXT:    relax.bitwise_or {{.*}} -> !relax.tensor<[4], i64>
// CHECK-NEXT:    relax.bitwise_or {{.*}} -> !relax.tensor<*, i64>
// CHECK-NEXT:    relax.bitwise_xor {{.*}} -> !relax.tensor<*, i64>
relax.func @maps(%x: !relax.tensor<[n, 4], f32>, %h: !relax.tensor<ndim=2, f16>, %m: !relax.tensor<[n, 1], i1>, %k: !relax.tensor<[4], i64>, %u: !relax.tensor<*, i64>) -> !relax.object {
  %0 = relax.sin %x : (!relax.tensor<[n, 4], f32>)
  %1 = relax.cos %x : (!relax.tensor<[n, 4], f32>)
  %2 = relax.erf %h : (!relax.tensor<ndim=2, f16>)
  %3 = relax.isnan %x : (!relax.tensor<[n, 4], f32>)
  %4 = relax.fmod %x, %x : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], f32>)
  %5 = relax.bitwise_and %m, %3 : (!relax.tensor<[n, 1], i1>, !relax.tensor<[n, 4], i1>)
  %6 = relax.bitwise_or %k, %k : (!relax.tensor<[4], i64>, !relax.tensor<[4], i64>)
  %7 = relax.bitwise_or %k, %u : (!relax.tensor<[4], i64>, !relax.tensor<*, i64>)
  %8 = relax.bitwise_xor %k, %u : (!relax.tensor<[4], i64>, !relax.tensor<*, i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

// cumsum keeps the shape along an axis and flattens without one; booleans and narrow
// integers sum in i64 unless dtype says otherwise.
// CHECK-LABEL: relax.func @cumsum
// CHECK-NEXT:    relax.cumsum {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.cumsum {{.*}} -> !relax.tensor<[n * 4], f32>
// CHECK-NEXT:    relax.cumsum {{.*}} -> !relax.tensor<[n, 4], i64>
// CHECK-NEXT:    relax.cumsum {{.*}} -> !relax.tensor<[n, 4], i32>
// CHECK-NEXT:    relax.cumsum {{.*}} -> !relax.tensor<ndim=1, ?>
relax.func @cumsum(%x: !relax.tensor<[n, 4], f32>, %m: !relax.tensor<[n, 4], i1>, %u: !relax.tensor<*, ?>) -> !relax.object {
  %0 = relax.cumsum %x {axis = 1 : i64} : (!relax.tensor<[n, 4], f32>)
  %1 = relax.cumsum %x : (!relax.tensor<[n, 4], f32>)
  %2 = relax.cumsum %m {axis = 0 : i64, exclusive = true} : (!relax.tensor<[n, 4], i1>)
  %3 = relax.cumsum %m {axis = -1 : i64, dtype = i32} : (!relax.tensor<[n, 4], i1>)
  %4 = relax.cumsum %u : (!relax.tensor<*, ?>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

// gather_elements has the shape of its indices (negative_indices = false: torch's rule,
// a negative index is an error); gather_nd the leading dims of its
// indices then the axes of x it does not address.
// CHECK-LABEL: relax.func @gathers
// CHECK-NEXT:    relax.gather_elements {{.*}} -> !relax.tensor<[n, k, 5], f32>
// CHECK-NEXT:    relax.gather_nd {{.*}} -> !relax.tensor<[k, 2, 5], f32>
// CHECK-NEXT:    relax.gather_nd {{.*}} -> !relax.tensor<[n, k], f32>
// CHECK-NEXT:    relax.gather_nd {{.*}} -> !relax.tensor<*, f32>
// CHECK-NEXT:    relax.take %x, %i {axis = 2 : i64, negative_indices = false} : {{.*}} -> !relax.tensor<[n, 4, n, k, 5], f32>
// CHECK-NEXT:    relax.gather_elements %x, %i {axis = 1 : i64, negative_indices = true} : {{.*}} -> !relax.tensor<[n, k, 5], f32>
relax.func @gathers(%x: !relax.tensor<[n, 4, 5], f32>, %i: !relax.tensor<[n, k, 5], i64>, %j: !relax.tensor<[k, 2, 2], i32>, %b: !relax.tensor<[n, k, 2], i64>, %u: !relax.tensor<ndim=2, i64>) -> !relax.object {
  %0 = relax.gather_elements %x, %i {axis = 1 : i64} : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<[n, k, 5], i64>)
  %1 = relax.gather_nd %x, %j : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<[k, 2, 2], i32>)
  %2 = relax.gather_nd %x, %b {batch_dims = 1 : i64} : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<[n, k, 2], i64>)
  %3 = relax.gather_nd %x, %u : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<ndim=2, i64>)
  %4 = relax.take %x, %i {axis = 2 : i64, negative_indices = false} : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<[n, k, 5], i64>)
  %5 = relax.gather_elements %x, %i {axis = 1 : i64, negative_indices = true} : (!relax.tensor<[n, 4, 5], f32>, !relax.tensor<[n, k, 5], i64>)
  relax.return %x : !relax.tensor<[n, 4, 5], f32>
}
