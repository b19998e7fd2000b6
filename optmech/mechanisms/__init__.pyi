"""Type stub of the package's public names: type checkers and IDEs read these imports; at
run time the same names are imported on first use (lazy_loader.attach_stub)."""

from .base import ContinuousNoise as ContinuousNoise
from .base import DiscreteNoise as DiscreteNoise
from .base import NoiseDistribution as NoiseDistribution
from .discrete_staircase import DiscreteStaircase as DiscreteStaircase
from .frequency_oracles import GRR as GRR
from .frequency_oracles import OLH as OLH
from .frequency_oracles import OUE as OUE
from .frequency_oracles import HadamardResponse as HadamardResponse
from .frequency_oracles import SubsetSelection as SubsetSelection
from .gaussian import Gaussian as Gaussian
from .gaussian import analytic_gaussian_delta as analytic_gaussian_delta
from .geometric import Geometric as Geometric
from .geometric import truncated_geometric as truncated_geometric
from .laplace import Laplace as Laplace
from .local_randomizer import LocalRandomizer as LocalRandomizer
from .piecewise import LatticeNoise as LatticeNoise
from .piecewise import PiecewiseConstantNoise as PiecewiseConstantNoise
from .piecewise2d import PiecewiseConstantNoise2D as PiecewiseConstantNoise2D
from .shuffle_description import ShuffleDescription as ShuffleDescription
from .staircase import Staircase as Staircase
from .staircase import heuristic_gamma as heuristic_gamma
from .staircase import laplace_staircase_ratio as laplace_staircase_ratio
from .staircase import staircase_gamma_star as staircase_gamma_star
from .staircase_nd import StaircaseND as StaircaseND
from .truncated_laplace import TruncatedLaplace as TruncatedLaplace
from .uniform_atom import UniformAtom as UniformAtom
from .uniform_atom import uniform_atom_min_cost as uniform_atom_min_cost
