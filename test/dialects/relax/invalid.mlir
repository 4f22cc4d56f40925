// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Every verifier rule of the relax dialect, one case per chunk.

relax.func @impure_in_dataflow(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.dataflow -> !relax.tensor<[n], f32> {
    // expected-error @+1 {{impure relax.call_packed "log" is not allowed in a relax.dataflow region}}
    relax.call_packed "log"(%x) : (!relax.tensor<[n], f32>) -> ()
    relax.output %x : !relax.tensor<[n], f32>
  }
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @if_in_dataflow(%c: !relax.tensor<[], i1>, %x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.dataflow -> !relax.tensor<[n], f32> {
    // expected-error @+1 {{relax.if is not allowed in a relax.dataflow region}}
    %r = relax.if %c -> !relax.tensor<[n], f32> {
      relax.yield %x : !relax.tensor<[n], f32>
    } else {
      relax.yield %x : !relax.tensor<[n], f32>
    }
    relax.output %r : !relax.tensor<[n], f32>
  }
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @f(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  relax.return %x : !relax.tensor<[n], f32>
}
relax.func @call_in_dataflow(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.dataflow -> !relax.tensor<[n], f32> {
    // expected-error @+1 {{relax.call is not allowed in a relax.dataflow region}}
    %r = relax.call @f(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.output %r : !relax.tensor<[n], f32>
  }
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @dataflow_value_outside(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  %a = relax.dataflow -> !relax.tensor<[n], f32> {
    %lv = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
    relax.output %lv : !relax.tensor<[n], f32>
  }
  // expected-error @+1 {{use of undefined value %lv (values of a region, such as the dataflow values of a relax.dataflow, are not visible outside it)}}
  relax.return %lv : !relax.tensor<[n], f32>
}

// -----

relax.func @use_before_def(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{uses %b before it is defined}}
  %a = relax.exp %b : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  %b = relax.exp %x : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @undefined_var_in_result(%x: !relax.tensor<[n], f32>) -> !relax.tensor<ndim=1, f32> {
  // expected-error @+1 {{result type !relax.tensor<[m], f32> uses undefined symbolic variable(s) m}}
  %a = relax.call_packed "f"(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[m], f32>
  relax.return %a : !relax.tensor<[m], f32>
}

// -----

relax.func @undefined_var_in_shape(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{uses undefined symbolic variable(s) k}}
  %s = relax.shape [n, k]
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @expression_before_binding(%x: !relax.tensor<ndim=2, f32>) -> !relax.tensor<ndim=2, f32> {
  // expected-error @+1 {{symbolic variable(s) m in pattern [m * 2, k] are used in an expression before being bound}}
  %y = relax.match_shape %x [m * 2, k] : (!relax.tensor<ndim=2, f32>)
  relax.return %y : !relax.tensor<[m * 2, k], f32>
}

// -----

relax.func @variable_bound_in_branch(%c: !relax.tensor<[], i1>, %x: !relax.tensor<ndim=1, f32>) -> !relax.tensor<ndim=1, f32> {
  relax.if %c {
    %y = relax.match_shape %x [m] : (!relax.tensor<ndim=1, f32>)
    relax.yield
  } else {
    relax.yield
  }
  // expected-error @+1 {{uses undefined symbolic variable(s) m}}
  %s = relax.shape [m]
  relax.return %x : !relax.tensor<ndim=1, f32>
}

// -----

// expected-error @+1 {{result type !relax.tensor<[m], f32> uses symbolic variable(s) m that the parameters do not define; declare it as !relax.tensor<ndim=1, f32> and return the more specific value}}
relax.func @signature_uses_body_variable(%x: !relax.tensor<ndim=1, f32>) -> !relax.tensor<[m], f32> {
  %y = relax.match_shape %x [m] : (!relax.tensor<ndim=1, f32>)
  relax.return %y : !relax.tensor<[m], f32>
}

// -----

// expected-error @+1 {{parameter #0 type !relax.tensor<[n * 2], f32> uses symbolic variable(s) n that no parameter binds as a whole dimension}}
relax.func @parameter_expression_only(%x: !relax.tensor<[n * 2], f32>) -> !relax.tensor<ndim=1, f32> {
  relax.return %x : !relax.tensor<[n * 2], f32>
}

// -----

relax.func @result_type_mismatch(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{declared result type !relax.tensor<[n, 5], f32> does not match the deduced type !relax.tensor<[n, 4], f32>}}
  %a = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 5], f32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @dtype_mismatch(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{declared result type !relax.tensor<[n, 4], i32> does not match the deduced type !relax.tensor<[n, 4], f32>}}
  %a = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], i32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @rank_mismatch(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{declared result type !relax.tensor<ndim=3, f32> does not match the deduced type !relax.tensor<[n, 4], f32>}}
  %a = relax.exp %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<ndim=3, f32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @more_specific_than_deduced(%x: !relax.tensor<ndim=2, f32>, %s: !relax.tensor<[n], f32>) -> !relax.tensor<ndim=2, f32> {
  // expected-error @+1 {{declared result type !relax.tensor<[n, 4], f32> is more specific than the deduced type !relax.tensor<ndim=2, f32>; use relax.match_shape to assert it}}
  %a = relax.exp %x : (!relax.tensor<ndim=2, f32>) -> !relax.tensor<[n, 4], f32>
  relax.return %x : !relax.tensor<ndim=2, f32>
}

// -----

relax.func @operand_count(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{Expected 1 operand, but got 2}}
  %a = relax.exp %x, %x : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32>
  relax.return %x : !relax.tensor<[4], f32>
}

// -----

relax.func @call_tir_missing(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{'@nope' does not reference a tir.prim_func}}
  %y = relax.call_tir @nope(%x) : (!relax.tensor<[4], f32>) -> !relax.tensor<[4], f32>
  relax.return %y : !relax.tensor<[4], f32>
}

// -----

// call_tir is pure: its kernel may write only the outputs, never an input (the
// caller's value, which later uses read: a write would change them behind the program).
tir.prim_func @double_in_place(%a: !tir.buffer<[n], f32>, %b: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    %v = tir.load %a[i] : f32
    %w = arith.addf %v, %v : f32
    tir.store %a[i], %w : f32
    tir.store %b[i], %w : f32
  }
}
relax.func @writes_input(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{@double_in_place writes buffer #0 %a, an input of this call: a call_tir kernel writes only its outputs}}
  %y = relax.call_tir @double_in_place(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %y : !relax.tensor<[n], f32>
}

// -----

relax.func @g(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  relax.return %x : !relax.tensor<[4], f32>
}
relax.func @call_tir_not_tir(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{'@g' is a relax.func, expected a tir.prim_func}}
  %y = relax.call_tir @g(%x) : (!relax.tensor<[4], f32>) -> !relax.tensor<[4], f32>
  relax.return %y : !relax.tensor<[4], f32>
}

// -----

tir.prim_func @k(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
}
relax.func @call_tir_arity(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{@k takes 2 buffers and 0 symbolic integers, but the call passes 2 inputs + 1 outputs and 0 symbolic integers}}
  %y = relax.call_tir @k(%x, %x) : (!relax.tensor<[4], f32>, !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32>
  relax.return %y : !relax.tensor<[4], f32>
}

// -----

tir.prim_func @k(%X: !tir.buffer<[n], i32>, %Y: !tir.buffer<[n], f32>) {
}
relax.func @call_tir_dtype(%x: !relax.tensor<[4], f32>) -> !relax.tensor<[4], f32> {
  // expected-error @+1 {{buffer #0 of @k has element type i32, but the call passes !relax.tensor<[4], f32>}}
  %y = relax.call_tir @k(%x) : (!relax.tensor<[4], f32>) -> !relax.tensor<[4], f32>
  relax.return %y : !relax.tensor<[4], f32>
}

// -----

tir.prim_func @k(%X: !tir.buffer<[n], f32>, %Y: !tir.buffer<[n], f32>) {
}
relax.func @call_tir_unknown_output(%x: !relax.tensor<[4], f32>) -> !relax.tensor<ndim=1, f32> {
  // expected-error @+1 {{result #0 of call_tir must be a tensor with a known shape and dtype (the caller allocates it), got !relax.tensor<ndim=1, f32>}}
  %y = relax.call_tir @k(%x) : (!relax.tensor<[4], f32>) -> !relax.tensor<ndim=1, f32>
  relax.return %y : !relax.tensor<ndim=1, f32>
}

// -----

relax.func @return_incompatible(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], i32> {
  // expected-error @+1 {{declared function result type !relax.tensor<[n], i32> does not match the deduced type !relax.tensor<[n], f32>}}
  relax.return %x : !relax.tensor<[n], f32>
}

// -----

relax.func @output_count(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{relax.output gives 2 values but the op declares 1 results}}
  %a = relax.dataflow -> !relax.tensor<[n], f32> {
    relax.output %x, %x : !relax.tensor<[n], f32>, !relax.tensor<[n], f32>
  }
  relax.return %a : !relax.tensor<[n], f32>
}

// -----

relax.func @match_rank(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{pattern [n, 4, k] has rank 3 but the value has rank 2}}
  %y = relax.match_shape %x [n, 4, k] : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4, k], f32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @if_condition(%c: !relax.tensor<[2], i1>, %x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{declared condition type !relax.tensor<[], i1> does not match the deduced type !relax.tensor<[2], i1>}}
  %r = relax.if %c -> !relax.tensor<[n], f32> {
    relax.yield %x : !relax.tensor<[n], f32>
  } else {
    relax.yield %x : !relax.tensor<[n], f32>
  }
  relax.return %r : !relax.tensor<[n], f32>
}

// -----

relax.func @branch_type(%c: !relax.tensor<[], i1>, %x: !relax.tensor<[n], f32>, %s: !relax.shape<[n]>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{declared else-branch result #0 type !relax.tensor<[n], f32> does not match the deduced type !relax.shape<[n]>}}
  %r = relax.if %c -> !relax.tensor<[n], f32> {
    relax.yield %x : !relax.tensor<[n], f32>
  } else {
    relax.yield %s : !relax.shape<[n]>
  }
  relax.return %r : !relax.tensor<[n], f32>
}

// -----

relax.func @const_shape() -> !relax.tensor<[3], f32> {
  // expected-error @+1 {{Shape mismatch in dense literal}}
  %c = relax.const dense<[1.0, 2.0]> : !relax.tensor<[3], f32>
  relax.return %c : !relax.tensor<[3], f32>
}

// -----

relax.func @get_item_range(%t: !relax.tuple<!relax.object>) -> !relax.object {
  // expected-error @+1 {{index 1 is out of range for a tuple of 1}}
  %e = relax.get_item %t[1] : (!relax.tuple<!relax.object>)
  relax.return %e : !relax.object
}

// -----

relax.func @h(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @call_arity(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32> {
  // expected-error @+1 {{@h takes 1 arguments, the call passes 2}}
  %r = relax.call @h(%x, %x) : (!relax.tensor<[n], f32>, !relax.tensor<[n], f32>) -> !relax.tensor<[n], f32>
  relax.return %r : !relax.tensor<[n], f32>
}

// -----

relax.func @bad_type(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{unsupported element type 'f7'}}
  relax.return %x : !relax.tensor<[n, 4], f7>
}

// -----

relax.func @bad_expression(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{expected a symbolic expression, got ']'}}
  relax.return %x : !relax.tensor<[n, 4 +], f32>
}

// -----

relax.func @unknown_op(%x: !relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32> {
  // expected-error @+1 {{Operation relax.frobnicate is not registered}}
  %y = relax.frobnicate %x : (!relax.tensor<[n, 4], f32>) -> !relax.tensor<[n, 4], f32>
  relax.return %x : !relax.tensor<[n, 4], f32>
}

// -----

relax.func @wide_dense_array(%x: !relax.tensor<[1, 8, 6, 6], f32>, %k: !relax.tensor<[4, 8, 3, 3], f32>) -> !relax.tensor<[1, 4, 6, 6], f32> {
  // expected-error @+1 {{dense array element type wider than 64 bits}}
  %y = relax.conv2d %x, %k {padding = array<i664: 1, 1>} : (!relax.tensor<[1, 8, 6, 6], f32>, !relax.tensor<[4, 8, 3, 3], f32>)
  relax.return %y : !relax.tensor<[1, 4, 6, 6], f32>
}

// -----

relax.func @f32_result(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @call_result_dtype(%x: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f64> {
  // expected-error @+1 {{declared result type !relax.tensor<[n], f64> is incompatible with the result type !relax.tensor<[k], f32> of @f32_result (!relax.tensor<[n], f32> here)}}
  %r = relax.call @f32_result(%x) : (!relax.tensor<[n], f32>) -> !relax.tensor<[n], f64>
  relax.return %r : !relax.tensor<[n], f64>
}

// -----

relax.func @tensor_result(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k], f32> {
  relax.return %a : !relax.tensor<[k], f32>
}
relax.func @call_result_tuple(%x: !relax.tensor<[n], f32>) -> !relax.tuple<!relax.tensor<[n], f32>> {
  // expected-error @+1 {{declared result type !relax.tuple<!relax.tensor<[n], f32>> is incompatible with the result type !relax.tensor<[k], f32> of @tensor_result}}
  %r = relax.call @tensor_result(%x) : (!relax.tensor<[n], f32>) -> !relax.tuple<!relax.tensor<[n], f32>>
  relax.return %r : !relax.tuple<!relax.tensor<[n], f32>>
}

// -----

relax.func @double(%a: !relax.tensor<[k], f32>) -> !relax.tensor<[k * 2], f32> {
  %b = relax.concat %a, %a : (!relax.tensor<[k], f32>, !relax.tensor<[k], f32>)
  relax.return %b : !relax.tensor<[k * 2], f32>
}
relax.func @call_result_dims(%x: !relax.tensor<[3], f32>) -> !relax.tensor<[5], f32> {
  // expected-error @+1 {{declared result type !relax.tensor<[5], f32> is incompatible with the result type !relax.tensor<[k * 2], f32> of @double (!relax.tensor<[6], f32> here)}}
  %r = relax.call @double(%x) : (!relax.tensor<[3], f32>) -> !relax.tensor<[5], f32>
  relax.return %r : !relax.tensor<[5], f32>
}

// -----

relax.func @prim_float(%x: !relax.tensor<[n], f32>) -> !relax.object {
  // expected-error @+1 {{a prim value has an integer element type (i8 ... i64, ui8 ... ui64), got 'f32'}}
  %k = relax.prim_value n : !relax.prim<f32, n>
  relax.return %k : !relax.prim<f32, n>
}

// -----

// expected-error @+1 {{parameter #0 type !relax.prim<i64, i + 1> uses symbolic variable(s) i that no parameter binds as a whole dimension}}
relax.func @prim_unbound(%k: !relax.prim<i64, i + 1>) -> !relax.prim<i64> {
  relax.return %k : !relax.prim<i64, i + 1>
}

// -----

relax.func @prim_value_undefined(%x: !relax.tensor<[n], f32>) -> !relax.prim<i64> {
  // expected-error @+1 {{uses undefined symbolic variable(s) m}}
  %k = relax.prim_value m + n
  relax.return %k : !relax.prim<i64, m + n>
}

// -----

relax.func @prim_value_mismatch(%x: !relax.tensor<[n], f32>) -> !relax.prim<i64> {
  // expected-error @+1 {{declared result type !relax.prim<i64, n + 2> does not match the deduced type !relax.prim<i64, n + 1>}}
  %k = relax.prim_value n + 1 : !relax.prim<i64, n + 2>
  relax.return %k : !relax.prim<i64, n + 2>
}

// -----

relax.func @prim_value_empty(%x: !relax.tensor<[n], f32>) -> !relax.prim<i64> {
  // expected-error @+1 {{expected a symbolic integer expression}}
  %k = relax.prim_value : !relax.prim<i64, n>
  relax.return %k : !relax.prim<i64, n>
}

// -----

relax.func @prim_match_rank(%p: !relax.prim<i64>) -> !relax.prim<i64> {
  // expected-error @+1 {{relax.match_shape of a prim value takes a pattern of one expression, got [a, b]}}
  %m = relax.match_shape %p [a, b] : (!relax.prim<i64>)
  relax.return %p : !relax.prim<i64>
}

// -----

relax.func @prim_return(%i: !relax.prim<i64, i>) -> !relax.prim<i64, i> {
  %k = relax.prim_value i + 1
  // expected-error @+1 {{declared function result type !relax.prim<i64, i> does not match the deduced type !relax.prim<i64, i + 1>}}
  relax.return %k : !relax.prim<i64, i + 1>
}

// -----

// A value used as a more specific type than an operator deduced: the error names the
// operator, where it is, and the dims it could not relate.
relax.func @unrelated_broadcast(%a: !relax.tensor<[n, 64], f32>, %b: !relax.tensor<[m, 64], f32>) -> !relax.tensor<[n, 64], f32> {
  %c = relax.add %a, %b : (!relax.tensor<[n, 64], f32>, !relax.tensor<[m, 64], f32>)
  // expected-error @+1 {{%c is used as !relax.tensor<[n, 64], f32>, but it is !relax.tensor<ndim=2, f32> (the result of relax.add at 422:3): relax.add cannot relate dimension 0 of its operands, n and m (neither is provably equal to the other or 1); state how they relate with relax.match_shape}}
  relax.return %c : !relax.tensor<[n, 64], f32>
}

// -----

relax.func @other_dtype(%a: !relax.tensor<[n], f32>) -> !relax.tensor<[n], f16> {
  %c = relax.exp %a : (!relax.tensor<[n], f32>)
  // expected-error @+1 {{%c is used as !relax.tensor<[n], f16>, but it is !relax.tensor<[n], f32> (the result of relax.exp at 430:3)}}
  relax.return %c : !relax.tensor<[n], f16>
}
