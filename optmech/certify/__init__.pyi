"""Type stub of the package's public names: type checkers and IDEs read these imports; at
run time the same names are imported on first use (lazy_loader.attach_stub)."""

from .api import certify as certify
from .api import check as check
from .matrix import MatrixCertificate as MatrixCertificate
from .matrix import certified_epsilon as certified_epsilon
from .matrix import certify_mechanism as certify_mechanism
from .matrix import check_dp as check_dp
from .matrix import log_ratio_bound as log_ratio_bound
from .noise import DeltaReport as DeltaReport
from .noise import EpsilonReport as EpsilonReport
from .noise import cells_within_reach as cells_within_reach
from .noise import certify_noise_delta as certify_noise_delta
from .noise import certify_noise_epsilon as certify_noise_epsilon
from .noise import noise_delta as noise_delta
from .noise import noise_epsilon as noise_epsilon
from .noise2d import Noise2DReport as Noise2DReport
from .noise2d import certify_noise2d_epsilon as certify_noise2d_epsilon
from .noise2d import noise2d_epsilon as noise2d_epsilon
from .noise_certificate import NoiseCertificate as NoiseCertificate
from .noise_certificate import certify_noise as certify_noise
from .noise_certificate import check_noise as check_noise
from .profiles import Certificate as Certificate
from .profiles import GuaranteeReport as GuaranteeReport
from .profiles import certified_mu as certified_mu
from .profiles import certified_rho as certified_rho
from .profiles import certify_guarantee as certify_guarantee
from .profiles import certify_mu as certify_mu
from .profiles import certify_rho as certify_rho
from .profiles import check_guarantee as check_guarantee
from .profiles import privacy_profile as privacy_profile
from .profiles import renyi_divergence as renyi_divergence
from .report import FLOAT_RTOL as FLOAT_RTOL
from .report import SEARCH_RTOL as SEARCH_RTOL
from .report import PrivacyReport as PrivacyReport
from .report import TheoremReport as TheoremReport
from .report import default_rtol as default_rtol
