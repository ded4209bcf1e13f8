"""Random draws: the calls and methods that sample random numbers (LCM801 matches calls against them).

One table per way a program draws: a library function named by its dotted name, a method of a generator
object (NumPy `Generator`/`RandomState`, stdlib `random.Random`, `torch.Generator`), a method of a
distribution object (`torch.distributions`, a frozen `scipy.stats` distribution), an in-place fill of a
torch tensor.
"""

# Library functions that draw (dotted names as the scan qualifies them).
TORCH_RANDOM = frozenset({
    "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.rand_like", "torch.randn_like",
    "torch.randint_like", "torch.normal", "torch.bernoulli", "torch.multinomial", "torch.poisson",
    "torch.nn.functional.dropout", "torch.nn.functional.gumbel_softmax", "torch.nn.init.normal_",
    "torch.nn.init.uniform_",
})
# Methods of the stdlib `random` module (its functions) and of a `random.Random` instance.
STDLIB_RANDOM_METHODS = frozenset({"random", "uniform", "gauss", "normalvariate", "lognormvariate", "choice",
                                   "choices", "randint", "randrange", "shuffle", "sample", "triangular",
                                   "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
                                   "paretovariate", "weibullvariate", "getrandbits", "randbytes", "binomialvariate"})
STDLIB_DRAWS = frozenset(f"random.{m}" for m in STDLIB_RANDOM_METHODS)
# Modules whose functions all draw, except the NOT_DRAWS (seeding, generator construction, state).
RANDOM_MODULES = ("numpy.random.", "jax.random.")
NOT_DRAWS = frozenset({"numpy.random.default_rng", "numpy.random.seed", "numpy.random.Generator",
                       "numpy.random.RandomState", "numpy.random.SeedSequence", "numpy.random.PCG64",
                       "numpy.random.get_state", "numpy.random.set_state", "numpy.random.MT19937",
                       "numpy.random.Philox", "numpy.random.SFC64", "numpy.random.BitGenerator",
                       "jax.random.PRNGKey", "jax.random.key", "jax.random.split", "jax.random.fold_in",
                       "jax.random.key_data", "jax.random.wrap_key_data"})
# Methods of a generator object that draw: NumPy Generator/RandomState and stdlib Random.
GENERATOR_DRAWS = frozenset({"normal", "uniform", "integers", "random", "choice", "standard_normal", "randn",
                             "rand", "randint", "permutation", "shuffle", "binomial", "poisson", "exponential",
                             "gamma", "beta", "multivariate_normal", "laplace", "logistic", "lognormal",
                             "random_sample", "sample", "standard_exponential", "standard_gamma", "standard_t",
                             "standard_cauchy", "chisquare", "dirichlet", "geometric", "gumbel", "multinomial",
                             "vonmises", "wald", "weibull", "triangular", "bytes", "permuted"}) | STDLIB_RANDOM_METHODS
# What builds a generator object (the types the scan gives a value built by these calls).
GENERATOR_TYPES = frozenset({"numpy.random.default_rng", "numpy.random.Generator", "numpy.random.RandomState",
                             "random.Random", "random.SystemRandom", "torch.Generator"})
# Attribute and variable name endings that say a value is a generator when the scan cannot type it.
RNG_NAMES = ("rng", "generator", "np_random", "random_state", "noise_gen")
# Methods of a distribution object that draw: `torch.distributions` sampling, and `rvs` of a frozen
# `scipy.stats` distribution (`stats.norm(0, s).rvs(size=3)`) or of the distribution itself
# (`stats.norm.rvs(loc, s)`).
DISTRIBUTION_DRAWS = frozenset({"sample", "rsample", "sample_n"})
SCIPY_DRAWS = frozenset({"rvs"})
# Modules whose distribution classes and frozen distributions draw with the methods above.
DISTRIBUTION_MODULES = ("torch.distributions.", "scipy.stats.")
# In-place random fills of a torch tensor.
RANDOM_INPLACE_METHODS = frozenset({"normal_", "uniform_", "bernoulli_", "exponential_", "random_", "geometric_",
                                    "cauchy_", "log_normal_"})
# Diffusion noise schedulers whose `step` adds fresh noise to the sample it returns (ancestral sampling: DDPM's
# variance term, Euler/KDPM2 ancestral, SDE solvers); DDIM with its default `eta=0` is deterministic.
NOISY_SCHEDULERS = frozenset({"DDPMScheduler", "DDPMParallelScheduler", "EulerAncestralDiscreteScheduler",
                              "KDPM2AncestralDiscreteScheduler", "DPMSolverSDEScheduler"})
SCHEDULER_LIBRARIES = ("diffusers.",)

