// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Bad operands and attributes of the creation operators and tril / triu.

relax.func @zeros_without_dtype(%s: !relax.shape<[n, 4]>) -> !relax.object {
  // expected-error @+1 {{'relax.zeros' op expected a 'dtype' property}}
  %0 = relax.zeros %s : (!relax.shape<[n, 4]>)
  relax.return %s : !relax.shape<[n, 4]>
}

// -----

relax.func @ones_of_a_tensor(%x: !relax.tensor<[n, 4], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.ones' op expected a shape shape operand, got !relax.tensor<[n, 4], f32>}}
  %0 = relax.ones %x {dtype = f32} : (!relax.tensor<[n, 4], f32>)
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @full_fill_not_scalar(%s: !relax.shape<[n, 4]>, %v: !relax.tensor<[1], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.full' op expected a 0-d tensor as fill value, got !relax.tensor<[1], f32>}}
  %0 = relax.full %s, %v : (!relax.shape<[n, 4]>, !relax.tensor<[1], f32>)
  relax.return %s : !relax.shape<[n, 4]>
}

// -----

relax.func @arange_operands(%a: !relax.tensor<[], i64>, %b: !relax.tensor<[], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.arange' op expected an i64 tensor as end, got !relax.tensor<[], i32>}}
  %0 = relax.arange %a, %b, %a : (!relax.tensor<[], i64>, !relax.tensor<[], i32>, !relax.tensor<[], i64>)
  relax.return %a : !relax.tensor<[], i64>
}

// -----

relax.func @arange_zero_step(%n: !relax.prim<i64, n>) -> !relax.object {
  %zero = relax.prim_value 0
  // expected-error @+1 {{'relax.arange' op relax.arange: the step is 0}}
  %0 = relax.arange %zero, %n, %zero : (!relax.prim<i64, 0>, !relax.prim<i64, n>, !relax.prim<i64, 0>)
  relax.return %n : !relax.prim<i64, n>
}

// -----

relax.func @arange_reversed(%n: !relax.prim<i64, n>) -> !relax.object {
  %start = relax.prim_value n + 2
  %one = relax.prim_value 1
  // expected-error @+1 {{'relax.arange' op relax.arange: the range is not reversed (its length is not negative): 0 <= -2 is false}}
  %0 = relax.arange %start, %n, %one : (!relax.prim<i64, n + 2>, !relax.prim<i64, n>, !relax.prim<i64, 1>)
  relax.return %n : !relax.prim<i64, n>
}

// -----

relax.func @tril_of_a_vector(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{'relax.tril' op expected a tensor of rank >= 2, got !relax.tensor<[n], f32>}}
  %0 = relax.tril %x : (!relax.tensor<[n], f32>)
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @triu_of_a_scalar(%x: !relax.tensor<[], i32>) -> !relax.object {
  // expected-error @+1 {{'relax.triu' op expected a tensor of rank >= 2, got !relax.tensor<[], i32>}}
  %0 = relax.triu %x {k = 1 : i64} : (!relax.tensor<[], i32>)
  relax.return %x : !relax.tensor<[], i32>
}
