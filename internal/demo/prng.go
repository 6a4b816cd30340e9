package demo

// prng is a tiny deterministic pseudo-random generator (SplitMix64).
//
// The demo data must be byte-identical on every run, machine and Go release,
// so the package carries its own generator instead of relying on math/rand,
// whose derived helpers (IntN, Shuffle, ...) are free to change between
// releases.
type prng struct{ state uint64 }

// newPRNG returns a generator for one data family. Each family (CRM, orders,
// transcript, ...) uses its own seed so that changing one leaves the others'
// bytes untouched.
func newPRNG(seed uint64) *prng { return &prng{state: seed} }

// next returns the next 64 pseudo-random bits.
func (p *prng) next() uint64 {
	p.state += 0x9e3779b97f4a7c15
	z := p.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n). n must be positive. The modulo bias is
// below 2^-50 for the small n used here, which is irrelevant for demo data.
func (p *prng) intn(n int) int { return int(p.next() % uint64(n)) }

// between returns a number in [lo, hi].
func (p *prng) between(lo, hi int) int { return lo + p.intn(hi-lo+1) }

// percent reports true with probability pct/100.
func (p *prng) percent(pct int) bool { return p.intn(100) < pct }

// pick returns a pseudo-random element of xs, which must not be empty.
func pick[T any](p *prng, xs []T) T { return xs[p.intn(len(xs))] }
