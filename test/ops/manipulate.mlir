// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the shape manipulation operators (written without `-> result`).

// The design's example: symbolic reshape and flatten, and a -1 entry inferred.
// CHECK-LABEL: relax.func @reshape_flatten
// CHECK:         relax.reshape {{.*}} -> !relax.tensor<[n, m * 2], f32>
// CHECK-NEXT:    relax.flatten {{.*}} -> !relax.tensor<[m * n * 2], f32>
// CHECK:         relax.reshape {{.*}} -> !relax.tensor<[n, m * 2], f32>
// CHECK:         relax.reshape {{.*}} -> !relax.tensor<[m * n * 2], f32>
// CHECK:         relax.reshape {{.*}} -> !relax.tensor<[2, floordiv(m * n, 2)], f32>
// CHECK-NEXT:    relax.flatten {{.*}} -> !relax.tensor<ndim=1, f32>
relax.func @reshape_flatten(%x: !relax.tensor<[n, m, 2], f32>, %y: !relax.tensor<[n, m], f32>, %u: !relax.tensor<*, f32>) -> !relax.object {
  %s0 = relax.shape [n, m * 2] : !relax.shape<[n, m * 2]>
  %0 = relax.reshape %x, %s0 : (!relax.tensor<[n, m, 2], f32>, !relax.shape<[n, m * 2]>)
  %1 = relax.flatten %0 : (!relax.tensor<[n, m * 2], f32>)
  %s2 = relax.shape [n, -1] : !relax.shape<[n, -1]>
  %2 = relax.reshape %x, %s2 : (!relax.tensor<[n, m, 2], f32>, !relax.shape<[n, -1]>)
  %s3 = relax.shape [-1] : !relax.shape<[-1]>
  %3 = relax.reshape %x, %s3 : (!relax.tensor<[n, m, 2], f32>, !relax.shape<[-1]>)
  %s4 = relax.shape [2, -1] : !relax.shape<[2, -1]>
  %4 = relax.reshape %y, %s4 : (!relax.tensor<[n, m], f32>, !relax.shape<[2, -1]>)
  %5 = relax.flatten %u : (!relax.tensor<*, f32>)
  relax.return %x : !relax.tensor<[n, m, 2], f32>
}

// -----

// Squeezing without axes drops the provable 1s; a dimension that may be 1 leaves the rank unknown.
// CHECK-LABEL: relax.func @axes
// CHECK-NEXT:    relax.permute_dims {{.*}} -> !relax.tensor<[2, m, n], f32>
// CHECK-NEXT:    relax.permute_dims {{.*}} -> !relax.tensor<[m, 2, n], f32>
// CHECK-NEXT:    relax.expand_dims {{.*}} -> !relax.tensor<[1, n, m, 2, 1], f32>
// CHECK-NEXT:    relax.squeeze {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.squeeze {{.*}} -> !relax.tensor<*, f32>
// CHECK-NEXT:    relax.squeeze {{.*}} -> !relax.tensor<[n + 2], f32>
relax.func @axes(%x: !relax.tensor<[n, m, 2], f32>, %y: !relax.tensor<[n, 1, 4], f32>, %z: !relax.tensor<[1, n + 2, 1], f32>) -> !relax.object {
  %0 = relax.permute_dims %x : (!relax.tensor<[n, m, 2], f32>)
  %1 = relax.permute_dims %x {axes = array<i64: 1, -1, 0>} : (!relax.tensor<[n, m, 2], f32>)
  %2 = relax.expand_dims %x {axis = array<i64: 0, -1>} : (!relax.tensor<[n, m, 2], f32>)
  %3 = relax.squeeze %y {axis = array<i64: 1>} : (!relax.tensor<[n, 1, 4], f32>)
  %4 = relax.squeeze %y : (!relax.tensor<[n, 1, 4], f32>)
  %5 = relax.squeeze %z : (!relax.tensor<[1, n + 2, 1], f32>)
  relax.return %x : !relax.tensor<[n, m, 2], f32>
}

// -----

// The design's example: concatenating along a symbolic axis.
// CHECK-LABEL: relax.func @concat_split
// CHECK-NEXT:    relax.concat {{.*}} -> !relax.tensor<[m * 3, 224, 224, 3], f32>
// CHECK-NEXT:    relax.split {{.*}} -> !relax.tuple<!relax.tensor<[m, 224, 224, 3], f32>, !relax.tensor<[m, 224, 224, 3], f32>>
// CHECK-NEXT:    relax.split {{.*}} -> !relax.tuple<!relax.tensor<[m, 100, 224, 3], f32>, !relax.tensor<[m, 124, 224, 3], f32>>
// CHECK-NEXT:    relax.split {{.*}} -> !relax.tuple<!relax.tensor<[min(1, n)], i32>, !relax.tensor<[n - min(1, n)], i32>>
relax.func @concat_split(%a: !relax.tensor<[m, 224, 224, 3], f32>, %b: !relax.tensor<[m * 2, 224, 224, 3], f32>, %v: !relax.tensor<[n], i32>) -> !relax.object {
  %0 = relax.concat %a, %b {axis = 0 : i64} : (!relax.tensor<[m, 224, 224, 3], f32>, !relax.tensor<[m * 2, 224, 224, 3], f32>)
  %1 = relax.split %b {indices_or_sections = 2 : i64} : (!relax.tensor<[m * 2, 224, 224, 3], f32>)
  %2 = relax.split %a {indices_or_sections = array<i64: 100>, axis = 1 : i64} : (!relax.tensor<[m, 224, 224, 3], f32>)
  %3 = relax.split %v {indices_or_sections = array<i64: 1>} : (!relax.tensor<[n], i32>)
  relax.return %a : !relax.tensor<[m, 224, 224, 3], f32>
}

// -----

// Numpy slicing: negative indices count from the end, out-of-range ones are clamped;
// static sizes give exact lengths, symbolic ones min/max/floordiv forms.
// CHECK-LABEL: relax.func @indexing
// CHECK-NEXT:    relax.strided_slice {{.*}} -> !relax.tensor<[3, n], f32>
// CHECK-NEXT:    relax.strided_slice {{.*}} -> !relax.tensor<[3, n], f32>
// CHECK-NEXT:    relax.strided_slice {{.*}} -> !relax.tensor<[10, min(2, n)], f32>
// CHECK-NEXT:    relax.strided_slice {{.*}} -> !relax.tensor<[10, n - max(0, n - 2)], f32>
// CHECK-NEXT:    relax.take {{.*}} -> !relax.tensor<[k, n], f32>
// CHECK-NEXT:    relax.take {{.*}} -> !relax.tensor<[10, k], f32>
// CHECK-NEXT:    relax.take {{.*}} -> !relax.tensor<[k], f32>
relax.func @indexing(%x: !relax.tensor<[10, n], f32>, %i: !relax.tensor<[k], i64>) -> !relax.object {
  %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: -3>, end = array<i64: 100>} : (!relax.tensor<[10, n], f32>)
  %1 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 8>, end = array<i64: 1>, strides = array<i64: -3>} : (!relax.tensor<[10, n], f32>)
  %2 = relax.strided_slice %x {axes = array<i64: 1>, begin = array<i64: 0>, end = array<i64: 2>} : (!relax.tensor<[10, n], f32>)
  %3 = relax.strided_slice %x {axes = array<i64: -1>, begin = array<i64: -2>, end = array<i64: 9223372036854775807>} : (!relax.tensor<[10, n], f32>)
  %4 = relax.take %x, %i {axis = 0 : i64} : (!relax.tensor<[10, n], f32>, !relax.tensor<[k], i64>)
  %5 = relax.take %x, %i {axis = 1 : i64} : (!relax.tensor<[10, n], f32>, !relax.tensor<[k], i64>)
  %6 = relax.take %x, %i : (!relax.tensor<[10, n], f32>, !relax.tensor<[k], i64>)
  relax.return %x : !relax.tensor<[10, n], f32>
}

// -----

// strided_slice with prim bounds (begins, then ends): a symbolic bound is clamped to the
// dimension; a constant one counts from the end when negative.
// CHECK-LABEL: relax.func @slice_prim_bounds
// CHECK:         relax.strided_slice %x, %zero, %n {axes = array<i64: 1>} {{.*}} -> !relax.tensor<[b, min(m, n), 8], f32>
// CHECK-NEXT:    relax.strided_slice %x, %p, %e {axes = array<i64: 1>} {{.*}} -> !relax.tensor<[b, max(0, min(m, n + p) - min(m, p)), 8], f32>
// CHECK-NEXT:    relax.strided_slice %x, %n, %neg {axes = array<i64: -1>, strides = array<i64: 2>} {{.*}} -> !relax.tensor<[b, m, max(0, floordiv(-min(8, n) + 7, 2))], f32>
// CHECK-NEXT:    relax.strided_slice %x, %zero, %u {axes = array<i64: 1>} {{.*}} -> !relax.tensor<ndim=3, f32>
relax.func @slice_prim_bounds(%x: !relax.tensor<[b, m, 8], f32>, %n: !relax.prim<i64, n>, %p: !relax.prim<i64, p>, %u: !relax.prim<i64>) -> !relax.object {
  %zero = relax.prim_value 0
  %e = relax.prim_value p + n
  %neg = relax.prim_value -2
  %0 = relax.strided_slice %x, %zero, %n {axes = array<i64: 1>} : (!relax.tensor<[b, m, 8], f32>, !relax.prim<i64, 0>, !relax.prim<i64, n>)
  %1 = relax.strided_slice %x, %p, %e {axes = array<i64: 1>} : (!relax.tensor<[b, m, 8], f32>, !relax.prim<i64, p>, !relax.prim<i64, n + p>)
  %2 = relax.strided_slice %x, %n, %neg {axes = array<i64: -1>, strides = array<i64: 2>} : (!relax.tensor<[b, m, 8], f32>, !relax.prim<i64, n>, !relax.prim<i64, -2>)
  %3 = relax.strided_slice %x, %zero, %u {axes = array<i64: 1>} : (!relax.tensor<[b, m, 8], f32>, !relax.prim<i64, 0>, !relax.prim<i64>)
  relax.return %x : !relax.tensor<[b, m, 8], f32>
}
