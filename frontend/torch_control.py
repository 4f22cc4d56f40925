"""torch's higher-order control flow (``cond``, ``while_loop``) as relax control flow
(registered on import by :mod:`xrelax.frontend.torch`)."""
