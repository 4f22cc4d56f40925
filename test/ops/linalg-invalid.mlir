// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches of matmul.

relax.func @static_inner(%a: !relax.tensor<[n, 3], f32>, %b: !relax.tensor<[4, m], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.matmul' op expected the inner dimensions to agree, got lhs !relax.tensor<[n, 3], f32> with 3 columns and rhs !relax.tensor<[4, m], f32> with 4 rows}}
  %0 = relax.matmul %a, %b : (!relax.tensor<[n, 3], f32>, !relax.tensor<[4, m], f32>)
  relax.return %a : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @symbolic_inner(%a: !relax.tensor<[n, k], f32>, %b: !relax.tensor<[k], f32>, %c: !relax.tensor<[k + 1], f32>) -> !relax.object {
  // expected-error @+1 {{with k columns and rhs !relax.tensor<[k + 1], f32> with k + 1 rows}}
  %0 = relax.matmul %a, %c : (!relax.tensor<[n, k], f32>, !relax.tensor<[k + 1], f32>)
  relax.return %a : !relax.tensor<[n, k], f32>
}

// -----

relax.func @batch(%a: !relax.tensor<[2, n, k], f32>, %b: !relax.tensor<[3, k, m], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.matmul' op dimension 0 of the broadcast shapes differs: 2 vs 3}}
  %0 = relax.matmul %a, %b : (!relax.tensor<[2, n, k], f32>, !relax.tensor<[3, k, m], f32>)
  relax.return %a : !relax.tensor<[2, n, k], f32>
}

// -----

relax.func @scalar_operand(%a: !relax.tensor<[], f32>, %b: !relax.tensor<[k, m], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.matmul' op expected a lhs of rank >= 1, got !relax.tensor<[], f32>}}
  %0 = relax.matmul %a, %b : (!relax.tensor<[], f32>, !relax.tensor<[k, m], f32>)
  relax.return %a : !relax.tensor<[], f32>
}

// -----

relax.func @dtypes(%a: !relax.tensor<[n, k], f32>, %b: !relax.tensor<[k, m], f16>) -> !relax.object {
  // expected-error @+1 {{operands must have the same element type}}
  %0 = relax.matmul %a, %b : (!relax.tensor<[n, k], f32>, !relax.tensor<[k, m], f16>)
  relax.return %a : !relax.tensor<[n, k], f32>
}
