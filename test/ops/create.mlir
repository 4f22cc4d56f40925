// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the creation operators and tril / triu (written without
// `-> result`).

// CHECK-LABEL: relax.func @filled
// CHECK:         relax.zeros {{.*}} -> !relax.tensor<[n, 4], f32>
// CHECK-NEXT:    relax.ones {{.*}} -> !relax.tensor<[n, 4], i32>
// CHECK-NEXT:    relax.full {{.*}} -> !relax.tensor<[n, 4], i64>
// CHECK-NEXT:    relax.full {{.*}} -> !relax.tensor<[n, 4], f16>
// CHECK-NEXT:    relax.zeros {{.*}} -> !relax.tensor<ndim=2, i1>
// CHECK-NEXT:    relax.ones {{.*}} -> !relax.tensor<*, f32>
relax.func @filled(%x: !relax.tensor<[n], f32>, %v: !relax.tensor<[], i64>, %r: !relax.shape<ndim=2>, %u: !relax.shape<*>) -> !relax.object {
  %s = relax.shape [n, 4] : !relax.shape<[n, 4]>
  %0 = relax.zeros %s {dtype = f32} : (!relax.shape<[n, 4]>)
  %1 = relax.ones %s {dtype = i32} : (!relax.shape<[n, 4]>)
  %2 = relax.full %s, %v : (!relax.shape<[n, 4]>, !relax.tensor<[], i64>)
  %3 = relax.full %s, %v {dtype = f16} : (!relax.shape<[n, 4]>, !relax.tensor<[], i64>)
  %4 = relax.zeros %r {dtype = i1} : (!relax.shape<ndim=2>)
  %5 = relax.ones %u {dtype = f32} : (!relax.shape<*>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// The length of arange depends on the values of its operands: only the rank is known.
// CHECK-LABEL: relax.func @arange
// CHECK-NEXT:    relax.arange {{.*}} -> !relax.tensor<ndim=1, i64>
// CHECK-NEXT:    relax.arange {{.*}} -> !relax.tensor<ndim=1, f32>
relax.func @arange(%a: !relax.tensor<[], i64>, %b: !relax.tensor<[], i64>, %c: !relax.tensor<[], i64>) -> !relax.object {
  %0 = relax.arange %a, %b, %c : (!relax.tensor<[], i64>, !relax.tensor<[], i64>, !relax.tensor<[], i64>)
  %1 = relax.arange %a, %b, %c {dtype = f32} : (!relax.tensor<[], i64>, !relax.tensor<[], i64>, !relax.tensor<[], i64>)
  relax.return %a : !relax.tensor<[], i64>
}

// -----

// Of prim values of known value the length is symbolic: end - start for a unit step,
// rounded up for others, counting down for a negative constant step.
// CHECK-LABEL: relax.func @arange_of_prims
// CHECK-NEXT:    relax.prim_value
// CHECK-NEXT:    relax.prim_value
// CHECK-NEXT:    relax.prim_value
// CHECK-NEXT:    relax.arange %zero, %i, %one {{.*}} -> !relax.tensor<[i], i64>
// CHECK-NEXT:    relax.arange %p, %end, %one {dtype = f32} {{.*}} -> !relax.tensor<[i], f32>
// CHECK-NEXT:    relax.arange %zero, %i, %s {{.*}} -> !relax.tensor<[floordiv(i + s - 1, s)], i64>
// CHECK-NEXT:    relax.prim_value
// CHECK-NEXT:    relax.arange %i, %zero, %down {{.*}} -> !relax.tensor<[floordiv(i + 1, 2)], i64>
// CHECK-NEXT:    relax.arange %zero, %a, %one {{.*}} -> !relax.tensor<ndim=1, i64>
relax.func @arange_of_prims(%i: !relax.prim<i64, i>, %p: !relax.prim<i64, p>, %s: !relax.prim<i64, s>, %a: !relax.prim<i64>) -> !relax.object {
  %zero = relax.prim_value 0
  %one = relax.prim_value 1
  %end = relax.prim_value p + i
  %0 = relax.arange %zero, %i, %one : (!relax.prim<i64, 0>, !relax.prim<i64, i>, !relax.prim<i64, 1>)
  %1 = relax.arange %p, %end, %one {dtype = f32} : (!relax.prim<i64, p>, !relax.prim<i64, p + i>, !relax.prim<i64, 1>)
  %2 = relax.arange %zero, %i, %s : (!relax.prim<i64, 0>, !relax.prim<i64, i>, !relax.prim<i64, s>)
  %down = relax.prim_value -2
  %3 = relax.arange %i, %zero, %down : (!relax.prim<i64, i>, !relax.prim<i64, 0>, !relax.prim<i64, -2>)
  %4 = relax.arange %zero, %a, %one : (!relax.prim<i64, 0>, !relax.prim<i64>, !relax.prim<i64, 1>)
  relax.return %i : !relax.prim<i64, i>
}

// -----

// full of a prim value: i64, or the dtype given.
// CHECK-LABEL: relax.func @full_of_prim
// CHECK:         relax.full %s, %p {{.*}} -> !relax.tensor<[n, p], i64>
// CHECK-NEXT:    relax.full %s, %u {dtype = f32} {{.*}} -> !relax.tensor<[n, p], f32>
relax.func @full_of_prim(%x: !relax.tensor<[n], f32>, %p: !relax.prim<i64, p>, %u: !relax.prim<i64>) -> !relax.object {
  %s = relax.shape [n, p]
  %0 = relax.full %s, %p : (!relax.shape<[n, p]>, !relax.prim<i64, p>)
  %1 = relax.full %s, %u {dtype = f32} : (!relax.shape<[n, p]>, !relax.prim<i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

// tril and triu keep the type of their operand, whatever is known of it.
// CHECK-LABEL: relax.func @triangular
// CHECK-NEXT:    relax.tril {{.*}} -> !relax.tensor<[b, n, m], f32>
// CHECK-NEXT:    relax.triu {{.*}} {k = -1 : i64} {{.*}} -> !relax.tensor<[n, 4], i1>
// CHECK-NEXT:    relax.tril {{.*}} {k = 2 : i64} {{.*}} -> !relax.tensor<ndim=3, i32>
// CHECK-NEXT:    relax.triu {{.*}} -> !relax.tensor<*, ?>
relax.func @triangular(%x: !relax.tensor<[b, n, m], f32>, %y: !relax.tensor<[n, 4], i1>, %z: !relax.tensor<ndim=3, i32>, %u: !relax.tensor<*, ?>) -> !relax.object {
  %0 = relax.tril %x : (!relax.tensor<[b, n, m], f32>)
  %1 = relax.triu %y {k = -1 : i64} : (!relax.tensor<[n, 4], i1>)
  %2 = relax.tril %z {k = 2 : i64} : (!relax.tensor<ndim=3, i32>)
  %3 = relax.triu %u : (!relax.tensor<*, ?>)
  relax.return %x : !relax.tensor<[b, n, m], f32>
}
