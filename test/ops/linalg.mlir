// RUN: relax-opt %s --split-input-file -p relax-normalize | filecheck %s
// Deduced result types of matmul (numpy semantics, written without `-> result`).

// CHECK-LABEL: relax.func @matmul
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[b, n, m], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[b, n, m], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[b, m], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[n], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[], f32>
relax.func @matmul(%a: !relax.tensor<[n, k], f32>, %b: !relax.tensor<[k, m], f32>, %c: !relax.tensor<[b, n, k], f32>, %d: !relax.tensor<[1, n, k], f32>, %e: !relax.tensor<[b, k, m], f32>, %v: !relax.tensor<[k], f32>) -> !relax.object {
  %0 = relax.matmul %a, %b : (!relax.tensor<[n, k], f32>, !relax.tensor<[k, m], f32>)
  %1 = relax.matmul %c, %b : (!relax.tensor<[b, n, k], f32>, !relax.tensor<[k, m], f32>)
  %2 = relax.matmul %d, %e : (!relax.tensor<[1, n, k], f32>, !relax.tensor<[b, k, m], f32>)
  %3 = relax.matmul %v, %e : (!relax.tensor<[k], f32>, !relax.tensor<[b, k, m], f32>)
  %4 = relax.matmul %a, %v : (!relax.tensor<[n, k], f32>, !relax.tensor<[k], f32>)
  %5 = relax.matmul %v, %v : (!relax.tensor<[k], f32>, !relax.tensor<[k], f32>)
  relax.return %a : !relax.tensor<[n, k], f32>
}

// -----

// Undecidable inner or batch sizes are not errors: the kernel checks them at run time.
// CHECK-LABEL: relax.func @undecidable
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<[n, m], f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<ndim=3, f32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<ndim=3, i32>
// CHECK-NEXT:    relax.matmul {{.*}} -> !relax.tensor<*, i32>
relax.func @undecidable(%a: !relax.tensor<[n, k], f32>, %b: !relax.tensor<[j, m], f32>, %c: !relax.tensor<[p, n, k], f32>, %d: !relax.tensor<[q, k, m], f32>, %r: !relax.tensor<ndim=3, i32>, %s: !relax.tensor<[k, m], i32>, %u: !relax.tensor<*, i32>) -> !relax.object {
  %0 = relax.matmul %a, %b : (!relax.tensor<[n, k], f32>, !relax.tensor<[j, m], f32>)
  %1 = relax.matmul %c, %d : (!relax.tensor<[p, n, k], f32>, !relax.tensor<[q, k, m], f32>)
  %2 = relax.matmul %r, %s : (!relax.tensor<ndim=3, i32>, !relax.tensor<[k, m], i32>)
  %3 = relax.matmul %u, %s : (!relax.tensor<*, i32>, !relax.tensor<[k, m], i32>)
  relax.return %a : !relax.tensor<[n, k], f32>
}
