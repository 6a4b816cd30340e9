package servers

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// DPoP (RFC 9449; the MCP ext-auth DPoP extension, SEP-1932):
// sender-constrained tokens. When the authorization server's metadata
// lists ES256 in dpop_signing_alg_values_supported, a login makes a fresh
// P-256 key, signs a DPoP proof for its token request, and stores the key
// with the login (the token store's 0600 file; the key is never printed
// nor logged). A token that comes back with token_type DPoP is then sent
// as "Authorization: DPoP <token>" with a fresh proof on every request to
// the MCP server (its method and URL, the token's hash in "ath", the
// body's digest in "content_digest"); refreshes carry a proof signed with
// the same key. Anything else stays Bearer, exactly as without DPoP.
//
// Proofs go only where the login goes: the token endpoint the
// authorization server's metadata names on its own origin, and the MCP
// server's origin. A server that asks for a nonce (error
// "use_dpop_nonce" with a DPoP-Nonce header) gets the request once more
// with it, once per request and only when the body can be sent again; a
// nonce that is not printable ASCII or is over maxDPoPNonce bytes is not
// sent back.

// dpopAlg is the one proof algorithm mcpcode signs with.
const dpopAlg = "ES256"

// maxDPoPNonce bounds a server's nonce: a longer one is refused, so that
// a server cannot make every later request carry megabytes.
const maxDPoPNonce = 512

// maxDPoPBoundTokens bounds the access tokens remembered as DPoP-bound.
const maxDPoPBoundTokens = 8

// maxDPoPNonceOrigins bounds the origins whose last nonce is remembered
// (the authorization server's and the MCP server's; more start afresh).
const maxDPoPNonceOrigins = 8

// maxTokenErrorBody bounds what is read of a token endpoint's 400 answer
// to see whether it asks for a nonce.
const maxTokenErrorBody = 64 << 10

// dpopKey is the private key of a DPoP-bound login (ES256: P-256).
// It prints as a placeholder, and only the token store writes it down.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jwk  []byte // the public key as a JWK, members in lexicographic order (RFC 7638)
}

func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key: %w", err)
	}
	return dpopKeyOf(priv)
}

func dpopKeyOf(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	pub, err := priv.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil || len(pub) != 65 {
		return nil, errors.New("the DPoP key is not a P-256 key")
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwk := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, b64(pub[1:33]), b64(pub[33:]))
	return &dpopKey{priv: priv, jwk: []byte(jwk)}, nil
}

func (k *dpopKey) String() string   { return "DPoP key (not shown)" }
func (k *dpopKey) GoString() string { return k.String() }

// thumbprint is the key's JWK SHA-256 thumbprint (RFC 7638), what an
// authorization server binds a token to (cnf.jkt).
func (k *dpopKey) thumbprint() string {
	sum := sha256.Sum256(k.jwk)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// storedDPoPKey is how the token store writes a key: a private JWK.
type storedDPoPKey struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	D   string `json:"d"`
}

func (k *dpopKey) MarshalJSON() ([]byte, error) {
	var pub storedDPoPKey
	if err := json.Unmarshal(k.jwk, &pub); err != nil {
		return nil, err
	}
	d, err := k.priv.Bytes()
	if err != nil {
		return nil, err
	}
	pub.D = base64.RawURLEncoding.EncodeToString(d)
	return json.Marshal(pub)
}

func (k *dpopKey) UnmarshalJSON(data []byte) error {
	var s storedDPoPKey
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	d, err := base64.RawURLEncoding.DecodeString(s.D)
	if s.Kty != "EC" || s.Crv != "P-256" || err != nil {
		return errors.New("the stored DPoP key is not an EC P-256 key")
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		return fmt.Errorf("the stored DPoP key is not valid: %w", err)
	}
	nk, err := dpopKeyOf(priv)
	if err != nil {
		return err
	}
	*k = *nk
	return nil
}

// dpopProof is what a proof says about the request it goes with.
type dpopProof struct {
	method string
	url    *url.URL
	// token is the access token presented with the request ("" at the
	// token endpoint); the proof carries its hash (ath).
	token string
	nonce string // the server's DPoP-Nonce, if it gave one
	// body is the request's body, whose digest the proof carries
	// (content_digest) when digest is set (requests to the MCP server).
	body   []byte
	digest bool
}

// htu is a proof's target URI: the request's URL without query and
// fragment (RFC 9449, section 4.2).
func htu(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host + path
}

// sign makes the DPoP proof JWT of p.
func (k *dpopKey) sign(p dpopProof, now time.Time) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	header, err := json.Marshal(struct {
		Typ string          `json:"typ"`
		Alg string          `json:"alg"`
		JWK json.RawMessage `json:"jwk"`
	}{"dpop+jwt", dpopAlg, k.jwk})
	if err != nil {
		return "", err
	}
	claims := struct {
		JTI           string `json:"jti"`
		HTM           string `json:"htm"`
		HTU           string `json:"htu"`
		IAT           int64  `json:"iat"`
		ATH           string `json:"ath,omitempty"`
		Nonce         string `json:"nonce,omitempty"`
		ContentDigest string `json:"content_digest,omitempty"`
	}{JTI: base64.RawURLEncoding.EncodeToString(jti), HTM: p.method, HTU: htu(p.url), IAT: now.Unix(), Nonce: p.nonce}
	if p.token != "" {
		sum := sha256.Sum256([]byte(p.token))
		claims.ATH = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if p.digest {
		sum := sha256.Sum256(p.body)
		claims.ContentDigest = "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", fmt.Errorf("signing a DPoP proof: %w", err)
	}
	sig := make([]byte, 64) // JWS ES256: R || S, 32 bytes each
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig), nil
}

// validDPoPNonce reports whether a DPoP-Nonce header can be sent back:
// 1 to maxDPoPNonce characters of NQCHAR (RFC 9449, section 8.1:
// printable ASCII without space, '"' and '\').
func validDPoPNonce(n string) bool {
	if n == "" || len(n) > maxDPoPNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// dpopState is the DPoP side of one upstream's OAuth handler: the key of
// the login in use, the key of a login in progress, what the
// authorization server advertised, the servers' nonces, and which access
// tokens are DPoP-bound.
type dpopState struct {
	server   string // the MCP server's name, for messages
	resource string // the origin of the MCP server's url: proofs with tokens go only there

	mu sync.Mutex
	// active is the key of the login in use (nil: none, or not bound);
	// activeTokenURL the token endpoint its refreshes go to.
	active         *dpopKey
	activeTokenURL string
	// A login in progress: its fresh key (made on first use) and the token
	// endpoint it was used at.
	inLogin    bool
	pending    *dpopKey
	pendingURL string
	// advertised holds the token endpoints (htu) whose authorization
	// server's metadata lists ES256 DPoP proofs.
	advertised map[string]bool
	nonces     map[string]string // origin -> the nonce it gave last
	bound      []boundToken      // DPoP-bound access tokens handed out lately
}

type boundToken struct {
	sum [sha256.Size]byte
	key *dpopKey
}

func newDPoPState(server, serverURL string) *dpopState {
	return &dpopState{server: server, resource: originOfURL(serverURL), advertised: map[string]bool{}, nonces: map[string]string{}}
}

// resume makes the key of a stored login the one in use.
func (s *dpopState) resume(key *dpopKey, tokenURL string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.activeTokenURL = key, tokenURL
}

// beginLogin starts a login: its token request gets a fresh key, if the
// authorization server advertises DPoP.
func (s *dpopState) beginLogin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inLogin, s.pending, s.pendingURL = true, nil, ""
}

// endLogin ends a login that did not get a token (no-op after commit).
func (s *dpopState) endLogin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inLogin, s.pending, s.pendingURL = false, nil, ""
}

// commit is called with the token a login got: it returns the key the
// login is bound to (nil for none), which becomes the one in use.
func (s *dpopState) commit(tok *oauth2.Token) (*dpopKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, url := s.pending, s.pendingURL
	s.inLogin, s.pending, s.pendingURL = false, nil, ""
	if key == nil && isDPoPToken(tok) {
		return nil, fmt.Errorf("the authorization server of server %q issued a DPoP-bound token (token_type DPoP) although mcpcode sent no DPoP proof: "+
			"mcpcode signs proofs only when the server's metadata lists ES256 in dpop_signing_alg_values_supported; ask its operator to advertise it", s.server)
	}
	s.active, s.activeTokenURL = key, url
	return key, nil
}

func isDPoPToken(tok *oauth2.Token) bool {
	return tok != nil && strings.EqualFold(tok.TokenType, "DPoP")
}

// noteMetadata reads an authorization server's metadata, fetched from
// metaURL: its token endpoint takes DPoP proofs when the metadata lists
// ES256 and the endpoint is on the metadata's own origin.
func (s *dpopState) noteMetadata(metaURL *url.URL, body []byte) {
	var m struct {
		TokenEndpoint string   `json:"token_endpoint"`
		Algs          []string `json:"dpop_signing_alg_values_supported"`
	}
	if json.Unmarshal(body, &m) != nil || m.TokenEndpoint == "" {
		return
	}
	te, err := url.Parse(m.TokenEndpoint)
	if err != nil || te.Host == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(m.Algs, dpopAlg) && originOf(te) == originOf(metaURL) {
		s.advertised[htu(te)] = true
	} else {
		delete(s.advertised, htu(te))
	}
}

// tokenRequestKey is the key a token request to u with grant_type grant
// is signed with, nil for none: in a login (not a refresh), a fresh key
// when the endpoint advertised DPoP; otherwise (a refresh, a client
// credentials token fetched again) the key in use, at its own endpoint.
func (s *dpopState) tokenRequestKey(u *url.URL, grant string) (*dpopKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target := htu(u)
	if s.inLogin && grant != "refresh_token" {
		if !s.advertised[target] {
			return nil, nil
		}
		if s.pending == nil {
			k, err := newDPoPKey()
			if err != nil {
				return nil, err
			}
			s.pending = k
		}
		s.pendingURL = u.String()
		return s.pending, nil
	}
	if s.active != nil && sameEndpoint(s.activeTokenURL, target) {
		return s.active, nil
	}
	return nil, nil
}

// sameEndpoint reports whether the URL written as endpoint has the
// target URI target (an htu).
func sameEndpoint(endpoint, target string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Host != "" && htu(u) == target
}

// markBound remembers that an access token is bound to key.
func (s *dpopState) markBound(token string, key *dpopKey) {
	sum := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bound {
		if b.sum == sum && b.key == key {
			return
		}
	}
	s.bound = append(s.bound, boundToken{sum, key})
	if len(s.bound) > maxDPoPBoundTokens {
		s.bound = slices.Delete(s.bound, 0, len(s.bound)-maxDPoPBoundTokens)
	}
}

// boundKey is the key an access token is bound to, nil when it is a
// Bearer token.
func (s *dpopState) boundKey(token string) *dpopKey {
	sum := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.bound) - 1; i >= 0; i-- {
		if s.bound[i].sum == sum {
			return s.bound[i].key
		}
	}
	return nil
}

func (s *dpopState) nonce(origin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonces[origin]
}

// noteNonce keeps a valid DPoP-Nonce a server sent; it reports whether
// the response carried one that is valid.
func (s *dpopState) noteNonce(origin string, resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if !validDPoPNonce(n) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nonces[origin]; !ok && len(s.nonces) >= maxDPoPNonceOrigins {
		clear(s.nonces)
	}
	s.nonces[origin] = n
	return true
}

// presenting hands out a login's tokens and notes those that are
// DPoP-bound (token_type DPoP) with their key, so that the requests
// carrying them get proofs.
type presenting struct {
	src oauth2.TokenSource
	key *dpopKey
	s   *dpopState
}

func (p presenting) Token() (*oauth2.Token, error) {
	tok, err := p.src.Token()
	if err != nil || !isDPoPToken(tok) {
		return tok, err
	}
	if p.key == nil {
		// A stored DPoP-bound token without its key cannot be used: as an
		// expired login, it leads to a new one.
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the stored token is DPoP-bound and its key is missing"}
	}
	p.s.markBound(tok.AccessToken, p.key)
	return tok, nil
}

// replayableBody returns req's body, read through GetBody, to sign and
// send again, and whether it can be sent again: not when req has a body
// but no GetBody (nothing is read then: the caller decides).
func replayableBody(req *http.Request) ([]byte, bool, error) {
	if req.GetBody == nil {
		noBody := req.Body == nil || req.Body == http.NoBody
		return nil, noBody, nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	return body, err == nil, err
}

// withBody is a clone of req that sends body.
func withBody(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	if body == nil && (req.Body == nil || req.Body == http.NoBody) {
		return r
	}
	setBody(r, body)
	r.ContentLength = int64(len(body))
	return r
}

// dpopAuthTransport is the DPoP layer of a login's HTTP client (under
// issuerGuard): it reads what the authorization server's metadata
// advertises, and signs the token requests that take proofs.
type dpopAuthTransport struct {
	base http.RoundTripper
	s    *dpopState
}

// maxMetadataBody bounds what is read of an authorization server's
// metadata.
const maxMetadataBody = 1 << 20

func isAuthServerMetadataPath(p string) bool {
	return strings.Contains(p, "/.well-known/oauth-authorization-server") || strings.Contains(p, "/.well-known/openid-configuration")
}

func (t *dpopAuthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet:
		resp, err := t.base.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusOK && isAuthServerMetadataPath(req.URL.Path) {
			head, rerr := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBody+1))
			if rerr == nil && len(head) <= maxMetadataBody {
				t.s.noteMetadata(req.URL, head)
			}
			unread(resp, head)
		}
		return resp, err
	case http.MethodPost:
		return t.tokenRequest(req)
	}
	return t.base.RoundTrip(req)
}

// tokenRequest sends a POST: a token request that takes a proof gets one,
// and once more with the nonce the authorization server asks for.
func (t *dpopAuthTransport) tokenRequest(req *http.Request) (*http.Response, error) {
	body, replayable, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	if !replayable {
		return t.base.RoundTrip(req) // not a token request of ours (oauth2 sends a string)
	}
	form, _ := url.ParseQuery(string(body))
	grant := form.Get("grant_type")
	if grant == "" {
		return t.base.RoundTrip(withBody(req, body))
	}
	key, err := t.s.tokenRequestKey(req.URL, grant)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return t.base.RoundTrip(withBody(req, body))
	}
	origin := originOf(req.URL)
	for attempt := 0; ; attempt++ {
		r := withBody(req, body)
		proof, err := key.sign(dpopProof{method: req.Method, url: req.URL, nonce: t.s.nonce(origin)}, time.Now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", proof)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := t.s.noteNonce(origin, resp)
		if resp.StatusCode != http.StatusBadRequest {
			return resp, nil
		}
		asks, err := asksForNonce(resp)
		if err != nil || !asks {
			return resp, err
		}
		resp.Body.Close()
		switch {
		case !fresh:
			return nil, fmt.Errorf("the authorization server of server %q asks for a DPoP nonce (use_dpop_nonce) without a valid DPoP-Nonce header "+
				"(1 to %d printable ASCII characters): mcpcode does not send it back; the authorization server is misconfigured, tell its operator", t.s.server, maxDPoPNonce)
		case attempt > 0:
			return nil, fmt.Errorf("the authorization server of server %q asked for a new DPoP nonce again after mcpcode sent the one it gave: "+
				"not asking again; its DPoP nonces do not work: try again later, or tell its operator", t.s.server)
		}
	}
}

// unread puts data, read from the start of resp's body, back in front of
// what is left of it.
func unread(resp *http.Response, data []byte) {
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
}

// asksForNonce reports whether a token endpoint's 400 is the error
// use_dpop_nonce (RFC 9449, section 8); the body stays readable.
func asksForNonce(resp *http.Response) (bool, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenErrorBody))
	if err != nil {
		return false, err
	}
	unread(resp, data)
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	return e.Error == "use_dpop_nonce", nil
}

// sendToResource sends a request to the MCP server with a DPoP-bound
// token: the DPoP scheme and a fresh proof, and once more with the nonce
// the server asks for (a 401 with the error use_dpop_nonce, RFC 9449
// section 9). The server's response to that retry is the answer; a
// second request for a nonce is an error rather than a new login.
func (s *dpopState) sendToResource(base http.RoundTripper, req *http.Request, token string, key *dpopKey) (*http.Response, error) {
	origin := originOf(req.URL)
	if s.resource == "" || origin != s.resource {
		return nil, fmt.Errorf("mcpcode sends the DPoP-bound token of server %q only to its url's origin, not to %s", s.server, redactURL(req.URL))
	}
	body, replayable, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	if !replayable { // read once for its digest; not sent a second time
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = data
	}
	for attempt := 0; ; attempt++ {
		r := withBody(req, body)
		proof, err := key.sign(dpopProof{method: req.Method, url: req.URL, token: token, nonce: s.nonce(origin), body: body, digest: true}, time.Now())
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "DPoP "+token)
		r.Header.Set("DPoP", proof)
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := s.noteNonce(origin, resp)
		if resp.StatusCode != http.StatusUnauthorized || !challengesNonce(resp) {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxTokenErrorBody))
		resp.Body.Close()
		switch {
		case !replayable:
			return nil, fmt.Errorf("server %q asks for a DPoP nonce (use_dpop_nonce), and this request's body cannot be sent again: try again", s.server)
		case !fresh:
			return nil, fmt.Errorf("server %q asks for a DPoP nonce (use_dpop_nonce) without a valid DPoP-Nonce header "+
				"(1 to %d printable ASCII characters): mcpcode does not send it back; the server is misconfigured, tell its operator", s.server, maxDPoPNonce)
		case attempt > 0:
			return nil, fmt.Errorf("server %q asked for a new DPoP nonce again after mcpcode sent the one it gave: "+
				"not asking again (nor logging in again); its DPoP nonces do not work: try again later, or tell its operator", s.server)
		}
	}
}

// challengesNonce reports whether a 401 asks for a DPoP nonce.
func challengesNonce(resp *http.Response) bool {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "dpop") && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}
