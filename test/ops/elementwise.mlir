// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of the elementwise operators (written without `-> result`).

// CHECK-LABEL: relax.func @unary
// CHECK-NEXT:    relax.exp {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.log {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.sqrt {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.rsqrt {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.tanh {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.sigmoid {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.gelu {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.silu {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.relu {{.*}} -> !relax.tensor<[n], i32>
// CHECK-NEXT:    relax.negative {{.*}} -> !relax.tensor<[n], i32>
// CHECK-NEXT:    relax.abs {{.*}} -> !relax.tensor<[n], i32>
relax.func @unary(%x: !relax.tensor<[n, m], f32>, %i: !relax.tensor<[n], i32>) -> !relax.object {
  %0 = relax.exp %x : (!relax.tensor<[n, m], f32>)
  %1 = relax.log %x : (!relax.tensor<[n, m], f32>)
  %2 = relax.sqrt %x : (!relax.tensor<[n, m], f32>)
  %3 = relax.rsqrt %x : (!relax.tensor<[n, m], f32>)
  %4 = relax.tanh %x : (!relax.tensor<[n, m], f32>)
  %5 = relax.sigmoid %x : (!relax.tensor<[n, m], f32>)
  %6 = relax.gelu %x : (!relax.tensor<[n, m], f32>)
  %7 = relax.silu %x : (!relax.tensor<[n, m], f32>)
  %8 = relax.relu %i : (!relax.tensor<[n], i32>)
  %9 = relax.negative %i : (!relax.tensor<[n], i32>)
  %10 = relax.abs %i : (!relax.tensor<[n], i32>)
  relax.return %x : !relax.tensor<[n, m], f32>
}

// -----

// Numpy broadcasting over symbolic shapes, the design's examples first.
// CHECK-LABEL: relax.func @broadcast
// CHECK-NEXT:    relax.add {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.subtract {{.*}} -> !relax.tensor<[n, 2, m], f32>
// CHECK-NEXT:    relax.multiply {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.divide {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.power {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.maximum {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.minimum {{.*}} -> !relax.tensor<[n, 2, m], f32>
relax.func @broadcast(%a: !relax.tensor<[n, m], f32>, %b: !relax.tensor<[m], f32>, %c: !relax.tensor<[n, 1, m], f32>, %d: !relax.tensor<[2, m], f32>, %s: !relax.tensor<[], f32>) -> !relax.object {
  %0 = relax.add %a, %b : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>)
  %1 = relax.subtract %c, %d : (!relax.tensor<[n, 1, m], f32>, !relax.tensor<[2, m], f32>)
  %2 = relax.multiply %a, %s : (!relax.tensor<[n, m], f32>, !relax.tensor<[], f32>)
  %3 = relax.divide %s, %a : (!relax.tensor<[], f32>, !relax.tensor<[n, m], f32>)
  %4 = relax.power %a, %a : (!relax.tensor<[n, m], f32>, !relax.tensor<[n, m], f32>)
  %5 = relax.maximum %b, %a : (!relax.tensor<[m], f32>, !relax.tensor<[n, m], f32>)
  %6 = relax.minimum %d, %c : (!relax.tensor<[2, m], f32>, !relax.tensor<[n, 1, m], f32>)
  relax.return %a : !relax.tensor<[n, m], f32>
}

// -----

// CHECK-LABEL: relax.func @compare_where_astype
// CHECK-NEXT:    relax.equal {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.not_equal {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.less {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.less_equal {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.greater {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.greater_equal {{.*}} -> !relax.tensor<[n, m], i1>
// CHECK-NEXT:    relax.where {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.astype {{.*}} {dtype = f16} {{.*}} -> !relax.tensor<[n, m], f16>
relax.func @compare_where_astype(%a: !relax.tensor<[n, m], f32>, %b: !relax.tensor<[m], f32>, %c: !relax.tensor<[n, 1], i1>) -> !relax.object {
  %0 = relax.equal %a, %b : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>)
  %1 = relax.not_equal %a, %b : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>)
  %2 = relax.less %a, %b : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>)
  %3 = relax.less_equal %a, %b : (!relax.tensor<[n, m], f32>, !relax.tensor<[m], f32>)
  %4 = relax.greater %b, %a : (!relax.tensor<[m], f32>, !relax.tensor<[n, m], f32>)
  %5 = relax.greater_equal %b, %a : (!relax.tensor<[m], f32>, !relax.tensor<[n, m], f32>)
  %6 = relax.where %c, %b, %a : (!relax.tensor<[n, 1], i1>, !relax.tensor<[m], f32>, !relax.tensor<[n, m], f32>)
  %7 = relax.astype %a {dtype = f16} : (!relax.tensor<[n, m], f32>)
  relax.return %a : !relax.tensor<[n, m], f32>
}

// -----

// The safety net: unknown dtype, rank and shape propagate as far as they are known.
// CHECK-LABEL: relax.func @safety_net
// CHECK-NEXT:    relax.add {{.*}} -> !relax.tensor<ndim=2, f32>
// CHECK-NEXT:    relax.exp {{.*}} -> !relax.tensor<*, f32>
// CHECK-NEXT:    relax.add {{.*}} -> !relax.tensor<ndim=1, f32>
// CHECK-NEXT:    relax.multiply {{.*}} -> !relax.tensor<[n], ?>
// CHECK-NEXT:    relax.less {{.*}} -> !relax.tensor<*, i1>
relax.func @safety_net(%r2: !relax.tensor<ndim=2, f32>, %v: !relax.tensor<[4], f32>, %u: !relax.tensor<*, f32>, %n: !relax.tensor<[n], f32>, %m: !relax.tensor<[m], f32>, %q: !relax.tensor<[n], ?>) -> !relax.object {
  %0 = relax.add %r2, %v : (!relax.tensor<ndim=2, f32>, !relax.tensor<[4], f32>)
  %1 = relax.exp %u : (!relax.tensor<*, f32>)
  %2 = relax.add %n, %m : (!relax.tensor<[n], f32>, !relax.tensor<[m], f32>)
  %3 = relax.multiply %n, %q : (!relax.tensor<[n], f32>, !relax.tensor<[n], ?>)
  %4 = relax.less %u, %n : (!relax.tensor<*, f32>, !relax.tensor<[n], f32>)
  relax.return %n : !relax.tensor<[n], f32>
}
