// RUN: %roundtrip
// RUN: %generic-roundtrip
// Every relax type prints back as written (after canonicalising its expressions).

// CHECK-LABEL: relax.func @tensors
// CHECK-SAME: (%a: !relax.tensor<[n, 4], f32>, %b: !relax.tensor<ndim=2, f32>, %c: !relax.tensor<*, f16>, %d: !relax.tensor<*, ?>, %e: !relax.tensor<[n], ?>, %f: !relax.tensor<[], i1>)
// CHECK-SAME: -> !relax.tensor<[n, 4], f32>
relax.func @tensors(%a: !relax.tensor<[n, 4], f32>, %b: !relax.tensor<ndim=2, f32>, %c: !relax.tensor<*, f16>, %d: !relax.tensor<*, ?>, %e: !relax.tensor<[n], ?>, %f: !relax.tensor<[], i1>) -> !relax.tensor<[n, 4], f32> {
  relax.return %a : !relax.tensor<[n, 4], f32>
}

// -----

// CHECK-LABEL: relax.func @dtypes
// CHECK-SAME: !relax.tensor<[2], f64>, %1: !relax.tensor<[2], bf16>, %2: !relax.tensor<[2], i8>, %3: !relax.tensor<[2], i16>, %4: !relax.tensor<[2], i32>, %5: !relax.tensor<[2], i64>
relax.func @dtypes(%0: !relax.tensor<[2], f64>, %1: !relax.tensor<[2], bf16>, %2: !relax.tensor<[2], i8>, %3: !relax.tensor<[2], i16>, %4: !relax.tensor<[2], i32>, %5: !relax.tensor<[2], i64>) -> !relax.object {
  relax.return %0 : !relax.tensor<[2], f64>
}

// -----

// CHECK-LABEL: relax.func @shapes
// CHECK-SAME: (%s: !relax.shape<[n, m * 2]>, %t: !relax.shape<ndim=2>, %u: !relax.shape<*>, %m: !relax.shape<[m]>) -> !relax.shape<[n, m * 2]>
relax.func @shapes(%s: !relax.shape<[n, m*2]>, %t: !relax.shape<ndim=2>, %u: !relax.shape<*>, %m: !relax.shape<[m]>) -> !relax.shape<[n, 2 * m]> {
  relax.return %s : !relax.shape<[n, m * 2]>
}

// -----

// CHECK-LABEL: relax.func @tuples_objects
// CHECK-SAME: (%t: !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>, !relax.object>, %o: !relax.object, %e: !relax.tuple<>)
// CHECK-SAME: -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>, !relax.object>
relax.func @tuples_objects(%t: !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>, !relax.object>, %o: !relax.object, %e: !relax.tuple<>) -> !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>, !relax.object> {
  relax.return %t : !relax.tuple<!relax.tensor<[n], f32>, !relax.shape<[n]>, !relax.object>
}

// -----

// Symbolic expressions: eager folding, canonical order, floordiv/floormod/min/max.
// CHECK-LABEL: relax.func @expressions
// CHECK-SAME: !relax.tensor<[n, m, n * 150528, floordiv(m, 2) * 2, n * 2 + 2, m * n - 1, floormod(n, 3), min(m, n), max(m, n) + 1, 12], f32>
relax.func @expressions(%n: !relax.tensor<[n, m], f32>, %x: !relax.tensor<[n, m, n * 224 * 224 * 3, 2 * floordiv(m, 2), (n + 1) * 2, n*m - 1, floormod(n, 3), min(n, m), max(m, n) + 1, 3 * 4], f32>) -> !relax.object {
  relax.return %x : !relax.tensor<[n, m, n * 150528, floordiv(m, 2) * 2, n * 2 + 2, m * n - 1, floormod(n, 3), min(m, n), max(m, n) + 1, 12], f32>
}

// -----

// Prim values (symbolic integers as values): unknown, or equal to an expression; a
// parameter whose value is a plain variable binds it, like a whole dimension does.
// CHECK-LABEL: relax.func @prims
// CHECK-SAME: (%i: !relax.prim<i64, i>, %a: !relax.prim<i64>, %b: !relax.prim<i32, i * 2 + 1>, %x: !relax.tensor<[i], f32>)
// CHECK-SAME: -> !relax.tuple<!relax.prim<i64, i>, !relax.prim<i64>>
relax.func @prims(%i: !relax.prim<i64, i>, %a: !relax.prim<i64>, %b: !relax.prim<i32, 1 + 2*i>, %x: !relax.tensor<[i], f32>) -> !relax.tuple<!relax.prim<i64, i>, !relax.prim<i64>> {
  %t = relax.tuple %i, %a : (!relax.prim<i64, i>, !relax.prim<i64>)
  relax.return %t : !relax.tuple<!relax.prim<i64, i>, !relax.prim<i64>>
}
