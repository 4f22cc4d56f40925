// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// unique: sorted distinct values, a length that depends on the data, so only the rank
// is known (the safety net); match_shape brings the result back to symbolic shapes.

// CHECK-LABEL: relax.func @unique
// CHECK-NEXT:    %0 = relax.unique {{.*}} -> !relax.tensor<ndim=1, i32>
// CHECK-NEXT:    %1 = relax.match_shape %0 [k] : (!relax.tensor<ndim=1, i32>) -> !relax.tensor<[k], i32>
// CHECK-NEXT:    %f = relax.astype %1 {dtype = f32} : (!relax.tensor<[k], i32>) -> !relax.tensor<[k], f32>
// CHECK-NEXT:    %2 = relax.exp {{.*}} -> !relax.tensor<[k], f32>
// CHECK-NEXT:    %3 = relax.unique {{.*}} -> !relax.tensor<ndim=1, ?>
relax.func @unique(%x: !relax.tensor<[n, 4], i32>, %u: !relax.tensor<*, ?>) -> !relax.object {
  %0 = relax.unique %x : (!relax.tensor<[n, 4], i32>)
  %1 = relax.match_shape %0 [k] : (!relax.tensor<ndim=1, i32>)
  %f = relax.astype %1 {dtype = f32} : (!relax.tensor<[k], i32>)
  %2 = relax.exp %f : (!relax.tensor<[k], f32>)
  %3 = relax.unique %u : (!relax.tensor<*, ?>)
  relax.return %2 : !relax.tensor<[k], f32>
}

// -----

// unique_all: the values' length depends on the data; the inverse has one position per
// element (per slice along the axis), so its length is known.
// CHECK-LABEL: relax.func @unique_all
// CHECK-NEXT:    relax.unique_all {{.*}} -> !relax.tuple<!relax.tensor<ndim=1, f32>, !relax.tensor<ndim=1, i64>, !relax.tensor<[n * 4], i64>, !relax.tensor<ndim=1, i64>>
// CHECK-NEXT:    relax.unique_all {{.*}} -> !relax.tuple<!relax.tensor<ndim=2, f32>, !relax.tensor<ndim=1, i64>, !relax.tensor<[4], i64>, !relax.tensor<ndim=1, i64>>
// CHECK-NEXT:    relax.nonzero {{.*}} -> !relax.tensor<ndim=2, i64>
// CHECK-NEXT:    relax.non_max_suppression {{.*}} -> !relax.tensor<ndim=2, i64>
relax.func @unique_all(%x: !relax.tensor<[n, 4], f32>, %b: !relax.tensor<[1, n, 4], f32>, %s: !relax.tensor<[1, 2, n], f32>, %k: !relax.tensor<[], i64>, %t: !relax.tensor<[], f32>) -> !relax.object {
  %0 = relax.unique_all %x : (!relax.tensor<[n, 4], f32>)
  %1 = relax.unique_all %x {axis = -1 : i64, sorted = false} : (!relax.tensor<[n, 4], f32>)
  %2 = relax.nonzero %x : (!relax.tensor<[n, 4], f32>)
  %3 = relax.non_max_suppression %b, %s, %k, %t, %t {center_point_box = true} : (!relax.tensor<[1, n, 4], f32>, !relax.tensor<[1, 2, n], f32>, !relax.tensor<[], i64>, !relax.tensor<[], f32>, !relax.tensor<[], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}
