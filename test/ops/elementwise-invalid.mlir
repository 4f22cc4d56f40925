// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Provable mismatches of the elementwise operators.

relax.func @broadcast_mismatch(%a: !relax.tensor<[n, 3], f32>, %b: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.add' op dimension 1 of the broadcast shapes differs: 3 vs 4}}
  %0 = relax.add %a, %b : (!relax.tensor<[n, 3], f32>, !relax.tensor<[n, 4], f32>)
  relax.return %a : !relax.tensor<[n, 3], f32>
}

// -----

relax.func @symbolic_broadcast_mismatch(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[n + 2, 2], f32>, %b: !relax.tensor<[n + 3, 2], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.maximum' op dimension 0 of the broadcast shapes differs: n + 2 vs n + 3}}
  %0 = relax.maximum %a, %b : (!relax.tensor<[n + 2, 2], f32>, !relax.tensor<[n + 3, 2], f32>)
  relax.return %a : !relax.tensor<[n + 2, 2], f32>
}

// -----

relax.func @dtype_mismatch(%a: !relax.tensor<[n], f32>, %b: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{operands must have the same element type, got !relax.tensor<[n], i32>, !relax.tensor<[n], f32> (convert one with relax.astype)}}
  %0 = relax.subtract %b, %a : (!relax.tensor<[n], i32>, !relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @float_only(%a: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.exp' op expected operand with a floating-point element type, got !relax.tensor<[n], i32>}}
  %0 = relax.exp %a : (!relax.tensor<[n], i32>)
  relax.return %a : !relax.tensor<[n], i32>
}

// -----

relax.func @no_arithmetic_on_i1(%a: !relax.tensor<[n], i1>) -> !relax.object {
  // expected-error @+1 {{expected operand with a numeric (not i1) element type, got !relax.tensor<[n], i1>}}
  %0 = relax.multiply %a, %a : (!relax.tensor<[n], i1>, !relax.tensor<[n], i1>)
  relax.return %a : !relax.tensor<[n], i1>
}

// -----

relax.func @where_condition(%a: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.where' op expected an i1 condition, got !relax.tensor<[n], f32>}}
  %0 = relax.where %a, %a, %a : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @astype_without_dtype(%a: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.astype' op expected a 'dtype' property}}
  %0 = relax.astype %a : (!relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @astype_to_a_non_element_type(%a: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{expected dtype to be one of f16, f32, f64, bf16, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, got index}}
  %0 = relax.astype %a {dtype = index} : (!relax.tensor<[n], f32>)
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @contradicting_result(%a: !relax.tensor<[n, 4], f32>, %b: !relax.tensor<[4], f32>) -> !relax.object {
  // expected-error @+1 {{declared result type !relax.tensor<[n, 5], f32> does not match the deduced type !relax.tensor<[n, 4], f32>}}
  %0 = relax.add %a, %b : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<[n, 5], f32>
  relax.return %a : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @result_more_specific_than_deduced(%a: !relax.tensor<[n], f32>, %b: !relax.tensor<[m], f32>) -> !relax.object {
  // expected-error @+1 {{declared result type !relax.tensor<[n], f32> is more specific than the deduced type !relax.tensor<ndim=1, f32>}}
  %0 = relax.add %a, %b : (!relax.tensor<[n], f32>, !relax.tensor<[m], f32>) -> !relax.tensor<[n], f32>
  relax.return %a : !relax.tensor<[n], f32>
}
