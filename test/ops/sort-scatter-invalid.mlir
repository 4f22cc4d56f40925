// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Bad operands and attributes of the float maps of ops/math.py, argsort and
// scatter_elements.

relax.func @floor_of_integers(%x: !relax.tensor<[n], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.floor' op expected operand with a floating-point element type, got !relax.tensor<[n], i32>}}
  %0 = relax.floor %x : (!relax.tensor<[n], i32>)
  relax.return %x : !relax.tensor<[n], i32>
}

// -----

relax.func @argsort_axis(%x: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.argsort' op axis 2 is out of range}}
  %0 = relax.argsort %x {axis = 2 : i64} : (!relax.tensor<[n, 4], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @scatter_reduction(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[n, 4], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.scatter_elements' op reduction is 'sum', expected one of none, add, mul, max, min}}
  %0 = relax.scatter_elements %x, %i, %x {reduction = "sum"} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 4], i64>, !relax.tensor<[n, 4], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @scatter_updates_shape(%x: !relax.tensor<[n, 4], f32>, %i: !relax.tensor<[n, 3], i64>, %u: !relax.tensor<[n, 2], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.scatter_elements' op}}
  %0 = relax.scatter_elements %x, %i, %u : (!relax.tensor<[n, 4], f32>, !relax.tensor<[n, 3], i64>, !relax.tensor<[n, 2], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @scatter_booleans_added(%x: !relax.tensor<[4], i1>, %i: !relax.tensor<[4], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.scatter_elements' op reduction 'add' is not defined on !relax.tensor<[4], i1>}}
  %0 = relax.scatter_elements %x, %i, %x {reduction = "add"} : (!relax.tensor<[4], i1>, !relax.tensor<[4], i64>, !relax.tensor<[4], i1>)
  relax.return %x : !relax.tensor<[4], i1>
}

// -----

relax.func @nonzero_of_a_scalar(%x: !relax.tensor<[], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.nonzero' op expected x of rank at least 1, got !relax.tensor<[], f32>}}
  %0 = relax.nonzero %x : (!relax.tensor<[], f32>)
  relax.return %x : !relax.tensor<[], f32>
}
