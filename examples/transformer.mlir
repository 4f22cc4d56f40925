// A transformer encoder block (pre-norm) with a symbolic sequence length s:
// layer_norm, 4-head self-attention (head size 64), and a GELU MLP, each with a
// residual connection. d_model = 256, MLP hidden size = 1024.
builtin.module {
  relax.func @main(%x: !relax.tensor<[s, 256], f32>, %ln1_g: !relax.tensor<[256], f32>, %ln1_b: !relax.tensor<[256], f32>, %wq: !relax.tensor<[256, 256], f32>, %bq: !relax.tensor<[256], f32>, %wk: !relax.tensor<[256, 256], f32>, %bk: !relax.tensor<[256], f32>, %wv: !relax.tensor<[256, 256], f32>, %bv: !relax.tensor<[256], f32>, %wo: !relax.tensor<[256, 256], f32>, %bo: !relax.tensor<[256], f32>, %ln2_g: !relax.tensor<[256], f32>, %ln2_b: !relax.tensor<[256], f32>, %w1: !relax.tensor<[256, 1024], f32>, %b1: !relax.tensor<[1024], f32>, %w2: !relax.tensor<[1024, 256], f32>, %b2: !relax.tensor<[256], f32>) -> !relax.tensor<[s, 256], f32> {
    %out = relax.dataflow -> !relax.tensor<[s, 256], f32> {
      %h = relax.layer_norm %x, %ln1_g, %ln1_b {axes = array<i64: -1>, epsilon = 1.0e-05 : f32} : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>, !relax.tensor<[256], f32>)
      %q0 = relax.matmul %h, %wq : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256, 256], f32>)
      %q = relax.add %q0, %bq : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>)
      %k0 = relax.matmul %h, %wk : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256, 256], f32>)
      %k = relax.add %k0, %bk : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>)
      %v0 = relax.matmul %h, %wv : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256, 256], f32>)
      %v = relax.add %v0, %bv : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>)
      %heads = relax.shape [s, 4, 64]
      %q3 = relax.reshape %q, %heads : (!relax.tensor<[s, 256], f32>, !relax.shape<[s, 4, 64]>)
      %k3 = relax.reshape %k, %heads : (!relax.tensor<[s, 256], f32>, !relax.shape<[s, 4, 64]>)
      %v3 = relax.reshape %v, %heads : (!relax.tensor<[s, 256], f32>, !relax.shape<[s, 4, 64]>)
      %qh = relax.permute_dims %q3 {axes = array<i64: 1, 0, 2>} : (!relax.tensor<[s, 4, 64], f32>)
      %kh = relax.permute_dims %k3 {axes = array<i64: 1, 2, 0>} : (!relax.tensor<[s, 4, 64], f32>)
      %vh = relax.permute_dims %v3 {axes = array<i64: 1, 0, 2>} : (!relax.tensor<[s, 4, 64], f32>)
      %scores = relax.matmul %qh, %kh : (!relax.tensor<[4, s, 64], f32>, !relax.tensor<[4, 64, s], f32>)
      %scale = relax.const dense<0.125> : !relax.tensor<[], f32>
      %scaled = relax.multiply %scores, %scale : (!relax.tensor<[4, s, s], f32>, !relax.tensor<[], f32>)
      %probs = relax.softmax %scaled {axis = -1 : i64} : (!relax.tensor<[4, s, s], f32>)
      %ctx = relax.matmul %probs, %vh : (!relax.tensor<[4, s, s], f32>, !relax.tensor<[4, s, 64], f32>)
      %ctx_t = relax.permute_dims %ctx {axes = array<i64: 1, 0, 2>} : (!relax.tensor<[4, s, 64], f32>)
      %model = relax.shape [s, 256]
      %ctx2 = relax.reshape %ctx_t, %model : (!relax.tensor<[s, 4, 64], f32>, !relax.shape<[s, 256]>)
      %o0 = relax.matmul %ctx2, %wo : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256, 256], f32>)
      %o = relax.add %o0, %bo : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>)
      %r1 = relax.add %x, %o : (!relax.tensor<[s, 256], f32>, !relax.tensor<[s, 256], f32>)
      %h2 = relax.layer_norm %r1, %ln2_g, %ln2_b {axes = array<i64: -1>, epsilon = 1.0e-05 : f32} : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>, !relax.tensor<[256], f32>)
      %f0 = relax.matmul %h2, %w1 : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256, 1024], f32>)
      %f1 = relax.add %f0, %b1 : (!relax.tensor<[s, 1024], f32>, !relax.tensor<[1024], f32>)
      %f2 = relax.gelu %f1 : (!relax.tensor<[s, 1024], f32>)
      %f3 = relax.matmul %f2, %w2 : (!relax.tensor<[s, 1024], f32>, !relax.tensor<[1024, 256], f32>)
      %f4 = relax.add %f3, %b2 : (!relax.tensor<[s, 256], f32>, !relax.tensor<[256], f32>)
      %r2 = relax.add %r1, %f4 : (!relax.tensor<[s, 256], f32>, !relax.tensor<[s, 256], f32>)
      relax.output %r2 : !relax.tensor<[s, 256], f32>
    }
    relax.return %out : !relax.tensor<[s, 256], f32>
  }
}
