// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Bad operands and attributes of the math, scan and gather operators.

relax.func @sin_of_integers(%x: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.sin' op expected operand with a floating-point element type, got !relax.tensor<[n], i32>}}
  %0 = relax.sin %x : (!relax.tensor<[n], i32>)
  relax.return %x : !relax.tensor<[n], i32>
}

// -----

relax.func @bitwise_of_floats(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.bitwise_and' op expected operand with an integer or i1 element type, got !relax.tensor<[n], f32>}}
  %0 = relax.bitwise_and %x, %x : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @cumsum_axis(%x: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.cumsum' op axis 2 is out of range for rank 2}}
  %0 = relax.cumsum %x {axis = 2 : i64} : (!relax.tensor<[n, 4], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @gather_elements_rank(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[n], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.gather_elements' op expected indices of the rank of x, got !relax.tensor<[n], i64> for !relax.tensor<[n, 4], f32>}}
  %0 = relax.gather_elements %x, %i : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n], i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @gather_elements_too_wide(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[n, 5], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.gather_elements' op relax.gather_elements: indices fit in x along axis 1: 5 <= 4 is false}}
  %0 = relax.gather_elements %x, %i {axis = 0 : i64} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 5], i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @gather_nd_depth(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[k, 3], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.gather_nd' op indices !relax.tensor<[k, 3], i64> address 3 axes (batch_dims = 0), but x is !relax.tensor<[n, 4], f32>}}
  %0 = relax.gather_nd %x, %i : (!relax.tensor<[n, 4], f32>, !relax.tensor<[k, 3], i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @gather_nd_batch(%x: !relax.tensor<[3, 4], f32>, %i: !relax.tensor<[2, 1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.gather_nd' op relax.gather_nd: indices and x share batch axis 0: 2 == 3 is false}}
  %0 = relax.gather_nd %x, %i {batch_dims = 1 : i64} : (!relax.tensor<[3, 4], f32>, !relax.tensor<[2, 1], i64>)
  relax.return %x : !relax.tensor<[3, 4], f32>
}

// -----

relax.func @gather_float_indices(%x: !relax.tensor<[3, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.gather_nd' op expected indices with a signed integer element type, got !relax.tensor<[3, 4], f32>}}
  %0 = relax.gather_nd %x, %x : (!relax.tensor<[3, 4], f32>, !relax.tensor<[3, 4], f32>)
  relax.return %x : !relax.tensor<[3, 4], f32>
}
