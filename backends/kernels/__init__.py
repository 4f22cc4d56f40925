"""The kernel backend: ``tir.prim_func`` -> Python callables over numpy arrays.

:func:`compile_prim_func` generates Python source for a prim_func, compiles it once
and caches it by structure; :func:`load_library` does so for a module's text.
Each loop nest is analysed into statements (a store with its enclosing loops) and
vectorized into whole-array numpy operations (:mod:`.vectorize`, :mod:`.views`,
:mod:`.splitting`); a nest that is not recognised runs as a correct scalar loop
nest (:mod:`.scalar`). ``Kernel.paths`` (and ``XRELAX_KERNEL_DEBUG=1``) tell which.
"""

from xrelax.backends.kernels.compiler import DEBUG_ENV, compile_prim_func, load_library
from xrelax.backends.kernels.kernel import Kernel, KernelError, KernelPath

__all__ = ["DEBUG_ENV", "Kernel", "KernelError", "KernelPath", "compile_prim_func", "load_library"]
