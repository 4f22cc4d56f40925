// RUN: relax-opt %s --split-input-file --verify-diagnostics
// Every verifier rule of the tir dialect.

tir.prim_func @index_count(%X: !tir.buffer<[n, m], f32>) {
  tir.for i in [0, n) {
    // expected-error @+1 {{1 indices for a buffer of rank 2}}
    %v = tir.load %X[i] : f32
  }
}

// -----

tir.prim_func @undefined_variable(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{uses undefined symbolic variable(s) k}}
  tir.for i in [0, k) {
  }
}

// -----

tir.prim_func @dtypes(%X: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    // expected-error @+1 {{loads i32 from a buffer of f32}}
    %v = tir.load %X[i] : i32
  }
}

// -----

tir.prim_func @store_dtype(%X: !tir.buffer<[n], f32>) {
  %c = arith.constant 1 : i32
  tir.for i in [0, n) {
    // expected-error @+1 {{stores i32 into a buffer of f32}}
    tir.store %X[i], %c : i32
  }
}

// -----

tir.prim_func @shadowing(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{loop variable 'n' shadows an existing variable}}
  tir.for n in [0, 4) {
  }
}

// -----

// expected-error @+1 {{buffer #0 uses symbolic variable(s) n that no buffer binds as a whole dimension and no sym parameter names}}
tir.prim_func @unbound(%X: !tir.buffer<[n * 2], f32>) {
}

// -----

tir.prim_func @index_type(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{tir.index produces i32 or i64}}
  %i = tir.index n : f32
}

// -----

tir.prim_func @not_a_buffer(%X: !tir.buffer<[n], f32>) {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{expected a symbolic expression, got ']'}}
  %v = tir.load %X[n +] : f32
}

// -----

tir.prim_func @assert_undefined(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{uses undefined symbolic variable(s) m}}
  tir.assert [n] == [m], "m is not defined"
}

// -----

tir.prim_func @assert_loop_variable_out_of_scope(%X: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
  }
  // expected-error @+1 {{uses undefined symbolic variable(s) i}}
  tir.assert [i] < [n], "i is defined in the loop only"
}

// -----

tir.prim_func @assert_lengths(%X: !tir.buffer<[n, m], f32>) {
  // expected-error @+1 {{compares 2 expressions with 1}}
  tir.assert [n, m] == [4], "lengths differ"
}

// -----

tir.prim_func @assert_empty(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{compares no expressions}}
  tir.assert [] == [], "nothing"
}

// -----

tir.prim_func @assert_relation(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{expected a relation '==', '<=' or '<'}}
  tir.assert [n] >= [1], "no such relation"
}

// -----

tir.prim_func @assert_message(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{string literal expected}}
  tir.assert [n] == [1], why
}

// -----

"tir.prim_func"() <{sym_name = "assert_generic", function_type = (!tir.buffer<[n], f32>) -> (), sym_params = #sym.dims<[]>}> ({
^bb0(%X: !tir.buffer<[n], f32>):
  // expected-error @+1 {{unknown relation '!=' (expected ==, <= or <)}}
  "tir.assert"() <{lhs = #sym.dims<[n]>, rhs = #sym.dims<[1]>, relation = "!=", message = "generic form"}> : () -> ()
}) : () -> ()

// -----

// SSA dominance (xDSL does not check it): a value used before its definition.
tir.prim_func @use_before_def(%A: !tir.buffer<[n], f32>, %B: !tir.buffer<[n], f32>) {
  tir.for i in [0, n) {
    // expected-error @+1 {{operand #1 does not dominate this use}}
    tir.store %B[i], %v : f32
    %v = tir.load %A[i] : f32
  }
}

// -----

// A loop variable is printed bare: a name that is not an identifier would not re-parse.
tir.prim_func @dotted_loop_variable(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{loop variable 'i.j' is not an identifier}}
  tir.for i.j in [0, n) {
  }
}

// -----

tir.prim_func @spaced_relation(%X: !tir.buffer<[n], f32>) {
  // expected-error @+1 {{expected a relation '==', '<=' or '<'}}
  tir.assert [n] = = [n], "a relation is one token pair, written together"
}
