// RUN: relax-opt %s --split-input-file --verify-diagnostics
// runtime_attrs and tensor_to_shape refuse what cannot hold whatever the values are.

relax.func @unknown_operator(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op expected 'op' to name a relax operator, got 'relax.nothing'}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.nothing", names = ["axis"]} : (!relax.tensor<[n], f32>, !relax.tensor<[1], i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @unknown_attribute(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op relax.sum has no attribute 'axes'}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axes"]} : (!relax.tensor<[n], f32>, !relax.tensor<[1], i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @given_twice(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op 'axis' is given in 'attrs' and as an operand}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"], attrs = {axis = array<i64: 0>}} : (!relax.tensor<[n], f32>, !relax.tensor<[1], i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @float_axes(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[1], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op expected an integer tensor as 'axis', got !relax.tensor<[1], f32>}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n], f32>, !relax.tensor<[1], f32>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @scalar_for_array(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op expected a 1-D tensor as 'axis', got !relax.tensor<[], i64>}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n], f32>, !relax.tensor<[], i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @too_many_axes(%x: !relax.tensor<[n], f32>, %a: !relax.tensor<[2], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op relax.sum: axis 1 is out of range for rank 1}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n], f32>, !relax.tensor<[2], i64>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @inner_dtype(%x: !relax.tensor<[n, n], i1>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op relax.sum: expected operand with a numeric (not i1) element type, got !relax.tensor<ndim=2, i1>}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n, n], i1>, !relax.tensor<[1], i64>)
  relax.return %x : !relax.tensor<[n, n], i1>
}

// -----

relax.func @declared_shape(%x: !relax.tensor<[n, 4], f32>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.runtime_attrs' op declared result type !relax.tensor<[n], f32> is more specific than the deduced type !relax.tensor<ndim=1, f32>; use relax.match_shape to assert it}}
  %0 = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[1], i64>) -> !relax.tensor<[n], f32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @shape_of_floats(%t: !relax.tensor<[2], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.tensor_to_shape' op expected an integer tensor, got !relax.tensor<[2], f32>}}
  %0 = relax.tensor_to_shape %t : (!relax.tensor<[2], f32>)
  relax.return %t : !relax.tensor<[2], f32>
}

// -----

relax.func @shape_of_matrix(%t: !relax.tensor<[2, 2], i64>) -> !relax.object {
  // expected-error @+1 {{'relax.tensor_to_shape' op expected a 1-D tensor, got !relax.tensor<[2, 2], i64>}}
  %0 = relax.tensor_to_shape %t : (!relax.tensor<[2, 2], i64>)
  relax.return %t : !relax.tensor<[2, 2], i64>
}

// -----

relax.func @names_not_strings(%x: !relax.tensor<[n, 4], f32>, %a: !relax.tensor<[1], i64>) -> !relax.object {
  // expected-error @+1 {{expected 'names' to be an array of attribute names (strings)}}
  %y = relax.runtime_attrs %x, %a {op = "relax.sum", names = [0]} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[1], i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @huge_attribute_array(%x: !relax.tensor<[n, 4], f32>, %a: !relax.tensor<[4294967296], i64>) -> !relax.object {
  // expected-error @+1 {{'axis' has 4294967296 values: an attribute array holds at most 1024 (one per axis, or per axis and side)}}
  %y = relax.runtime_attrs %x, %a {op = "relax.sum", names = ["axis"]} : (!relax.tensor<[n, 4], f32>, !relax.tensor<[4294967296], i64>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}
