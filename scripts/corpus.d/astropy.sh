# Astropy (pip; astronomy: coordinate frames through ERFA, the IAU's SOFA routines, and
# time series; one thread; offline: only the IERS tables the astropy-iers-data package
# ships, auto-download off, observation times in 2020) doing two kinds of astronomical
# computation, seeds from the seed; the driver prints a line after each unit.
#   task=altaz,coords=4000: unit i transforms 4000 new random ICRS positions to
#     horizontal coordinates (AltAz) at a random site, each at its own time in 2020
#     (precession-nutation, aberration, Earth rotation, polar motion, refraction off):
#     the same work each unit, so the cost should be about constant (a control).
#   task=lombscargle,points=grow: unit i computes the Lomb-Scargle periodogram (astropy's
#     Cython implementation, autopower up to frequency 2, 5 samples per peak) of the first
#     5000 i points of one noisy, unevenly sampled sinusoid (200 points per time unit, so
#     over a baseline of 25 i): the points and the frequency grid both grow with i, so the
#     cost grows about as i^2.
corpus_pip_astropy=(astropy==8.0.2 pyerfa==2.0.1.5 astropy-iers-data==0.2026.11.2.0.34.55
    pyyaml==6.0.4 packaging==26.4 numpy==2.4.6)

run_astropy() {
    cat >"$DRIVERS/astropy_tasks.py" <<'EOF'
"""Astropy, one computation per unit. argv: task units seed (task altaz: 4000 random
ICRS positions to AltAz per unit; task lombscargle: the periodogram of the first 5000 i
points of one series). The loop is Python's: TERM ends the process at once."""
import sys
import numpy as np
import astropy.units as u
from astropy.coordinates import AltAz, EarthLocation, SkyCoord
from astropy.time import Time
from astropy.timeseries import LombScargle
from astropy.utils import iers
iers.conf.auto_download = False
iers.conf.auto_max_age = None
task, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
if task == "altaz":
    site = EarthLocation(lat=rng.uniform(-60, 60) * u.deg, lon=rng.uniform(-180, 180) * u.deg,
                         height=1000 * u.m)
    for i in range(1, units + 1):
        n = 4000
        sky = SkyCoord(ra=rng.uniform(0, 360, n) * u.deg,
                       dec=np.degrees(np.arcsin(rng.uniform(-1, 1, n))) * u.deg, frame="icrs")
        when = Time("2020-01-01") + rng.uniform(0, 365, n) * u.day
        altaz = sky.transform_to(AltAz(obstime=when, location=site))
        print(f"batch {i} coords {n} above_horizon {int((altaz.alt > 0).sum())}", flush=True)
else:
    t = np.sort(rng.uniform(0, 25 * units, 5000 * units))  # 200 points per time unit
    period = rng.uniform(2, 20)
    y = np.sin(2 * np.pi * t / period) + rng.normal(0, 1.0, t.size)
    for i in range(1, units + 1):
        n = 5000 * i
        freq, power = LombScargle(t[:n], y[:n]).autopower(
            method="cython", maximum_frequency=2.0, samples_per_peak=5)
        print(f"periodogram {i} points {n} frequencies {freq.size} "
              f"best_period {1 / freq[power.argmax()]:.3f}", flush=True)
EOF
    local v
    v=$(pyver astropy astropy)
    record astropy "astronomy (coordinates and time series)" "$v" "pip:astropy" \
        "constant (control): each unit transforms 4000 new random positions from ICRS to AltAz, each at its own time" \
        "task=altaz,coords=4000" '^batch \d+ coords ' 3 30 natural -- \
        "$PY" "$DRIVERS/astropy_tasks.py" altaz @N@ '{rep}'
    record astropy "astronomy (coordinates and time series)" "$v" "pip:astropy" \
        "grows about as i^2: unit i computes a Lomb-Scargle periodogram of 5000 i points over a frequency grid that grows with them" \
        "task=lombscargle,points=grow" '^periodogram \d+ points ' 3 8 natural -- \
        "$PY" "$DRIVERS/astropy_tasks.py" lombscargle @N@ '{rep}'
}
