"""ATen converters of the neural-network family beyond the core set in
:mod:`xrelax.frontend.torch`: convolutions, pooling, upsampling and normalisation
(registered on import)."""
