// Command go-reference is the benchmark reference of issue 29: a straightforward WebAuthn relying party in Go, on
// duo-labs/webauthn (go-webauthn's predecessor) and pgx v4, speaking the subset of passkeyd's HTTP API that
// passkeyd-loadgen drives. It is what a typical team writes, not tuned and not sabotaged: every request runs
// autocommit statements on a pgx pool (prepared statements, as pgx does by default), and ceremonies are rows of its
// own table, consumed with DELETE … RETURNING. A sign-in finish is three statements (consume the ceremony, read the
// credential with its user, update the counter compare-and-set).
//
// It reads and writes passkeyd's users and credentials tables (the database is migrated by passkeyd), so credentials
// seeded by the load generator sign in here too. Benchmark reference only: see README.md beside this file.
//
//	go-reference            serve (PASSKEYD_DATABASE_URL, PASSKEYD_LISTEN, PASSKEYD_RP_ID, PASSKEYD_RP_NAME,
//	                        PASSKEYD_ORIGINS, PASSKEYD_CHALLENGE_TTL, PASSKEYD_POOL_SIZE, PASSKEYD_LOG_LEVEL)
//	go-reference migrate    create its ceremonies table (serving does too); passkeyd's tables must exist
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duo-labs/webauthn/protocol"
	"github.com/duo-labs/webauthn/protocol/webauthncbor"
	"github.com/duo-labs/webauthn/protocol/webauthncose"
	"github.com/duo-labs/webauthn/webauthn"
	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

const schema = `CREATE TABLE IF NOT EXISTS go_ceremonies (
    challenge    text        PRIMARY KEY,
    kind         text        NOT NULL,
    user_name    text,
    display_name text,
    session      jsonb       NOT NULL,
    expires_at   timestamptz NOT NULL
)`

type server struct {
	db       *pgxpool.Pool
	web      *webauthn.WebAuthn
	ttl      time.Duration
	logDebug bool
}

// user is a row of passkeyd's users table with its credential, as webauthn.User.
type user struct {
	handle      []byte
	name        string
	displayName string
	credentials []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return u.handle }
func (u *user) WebAuthnName() string                       { return u.name }
func (u *user) WebAuthnDisplayName() string                { return u.displayName }
func (u *user) WebAuthnIcon() string                       { return "" }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.credentials }

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func main() {
	log.SetFlags(log.LstdFlags | log.LUTC)
	databaseURL := os.Getenv("PASSKEYD_DATABASE_URL")
	if databaseURL == "" {
		log.Fatal("PASSKEYD_DATABASE_URL is required")
	}
	ctx := context.Background()
	config, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		log.Fatalf("PASSKEYD_DATABASE_URL: %v", err)
	}
	poolSize, err := strconv.Atoi(env("PASSKEYD_POOL_SIZE", "8"))
	if err != nil || poolSize < 1 {
		log.Fatalf("PASSKEYD_POOL_SIZE: not a positive number")
	}
	config.MaxConns = int32(poolSize)
	db, err := pgxpool.ConnectConfig(ctx, config)
	if err != nil {
		log.Fatalf("database: %v", err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, schema); err != nil {
		log.Fatalf("creating go_ceremonies: %v", err)
	}
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "migrate":
			var exists bool
			if err := db.QueryRow(ctx, "SELECT to_regclass('credentials') IS NOT NULL").Scan(&exists); err != nil || !exists {
				log.Fatal("passkeyd's tables are missing: migrate the database with passkeyd first")
			}
			return
		default:
			log.Fatalf("usage: %s [migrate]", os.Args[0])
		}
	}

	ttlSeconds, err := strconv.Atoi(env("PASSKEYD_CHALLENGE_TTL", "300"))
	if err != nil || ttlSeconds < 1 {
		log.Fatal("PASSKEYD_CHALLENGE_TTL: not a positive number of seconds")
	}
	// This version of the library takes one origin; passkeyd's list is comma-separated.
	origins := strings.Split(env("PASSKEYD_ORIGINS", "http://localhost:8080"), ",")
	if len(origins) > 1 {
		log.Printf("PASSKEYD_ORIGINS: only the first origin, %s, is accepted", origins[0])
	}
	requireResidentKey := true
	web, err := webauthn.New(&webauthn.Config{
		RPDisplayName:         env("PASSKEYD_RP_NAME", "passkeyd"),
		RPID:                  env("PASSKEYD_RP_ID", "localhost"),
		RPOrigin:              strings.TrimSpace(origins[0]),
		AttestationPreference: protocol.PreferNoAttestation,
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			RequireResidentKey: &requireResidentKey,
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationRequired,
		},
		Timeout: ttlSeconds * 1000,
	})
	if err != nil {
		log.Fatal(err)
	}
	level := strings.ToLower(env("PASSKEYD_LOG_LEVEL", "info"))
	s := &server{db: db, web: web, ttl: time.Duration(ttlSeconds) * time.Second, logDebug: level == "debug" || level == "trace"}

	mux := http.NewServeMux()
	mux.HandleFunc("/v1/registration/begin", post(s.beginRegistration))
	mux.HandleFunc("/v1/registration/finish", post(s.finishRegistration))
	mux.HandleFunc("/v1/authentication/begin", post(s.beginAuthentication))
	mux.HandleFunc("/v1/authentication/finish", post(s.finishAuthentication))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.Ping(r.Context()); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unreachable"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	httpServer := &http.Server{
		Addr:              env("PASSKEYD_LISTEN", "127.0.0.1:8080"),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
	}

	// Expired ceremonies that nobody finished.
	go func() {
		for range time.Tick(time.Minute) {
			if _, err := db.Exec(ctx, "DELETE FROM go_ceremonies WHERE expires_at < now()"); err != nil {
				log.Printf("cleanup: %v", err)
			}
		}
	}()

	done := make(chan struct{})
	go func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
		<-signals
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := httpServer.Shutdown(shutdown); err != nil {
			log.Printf("shutdown: %v", err)
		}
		close(done)
	}()
	if err := httpServer.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	<-done
}

// MARK: HTTP plumbing

type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func fail(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

// verification turns the library's error into a 422 (or 400 for what did not parse).
func verification(err error) *apiError {
	var perr *protocol.Error
	if errors.As(err, &perr) {
		status := http.StatusUnprocessableEntity
		if perr.Type == protocol.ErrBadRequest.Type || perr.Type == protocol.ErrParsingData.Type {
			status = http.StatusBadRequest
		}
		return fail(status, perr.Type, perr.Details+" "+perr.DevInfo)
	}
	return fail(http.StatusBadRequest, "malformed_response", err.Error())
}

func post(handler func(r *http.Request, body []byte) (int, interface{}, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeError(w, fail(http.StatusMethodNotAllowed, "method_not_allowed", "POST only"))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			writeError(w, fail(http.StatusRequestEntityTooLarge, "body_too_large", "over 64 KiB"))
			return
		}
		status, answer, err := handler(r, body)
		if err != nil {
			var api *apiError
			if !errors.As(err, &api) {
				log.Printf("%s: %v", r.URL.Path, err)
				api = fail(http.StatusInternalServerError, "internal_error", "internal error")
			}
			writeError(w, api)
			return
		}
		writeJSON(w, status, answer)
	}
}

func writeJSON(w http.ResponseWriter, status int, value interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(value); err != nil {
		log.Printf("writing the response: %v", err)
	}
}

func writeError(w http.ResponseWriter, err *apiError) {
	writeJSON(w, err.status, map[string]interface{}{"error": map[string]string{"code": err.code, "message": err.message}})
}

var b64 = base64.RawURLEncoding

// MARK: the options' JSON
//
// The library marshals its options for its own JavaScript (challenge and user id in standard base64, empty lists
// left out); passkeyd's API, like the browsers' parseCreationOptionsFromJSON / parseRequestOptionsFromJSON, has the
// W3C JSON forms: base64url everywhere, allowCredentials and excludeCredentials always present.

type descriptorJSON struct {
	Type       string   `json:"type"`
	ID         string   `json:"id"`
	Transports []string `json:"transports,omitempty"`
}

type requestOptionsJSON struct {
	Challenge        string                 `json:"challenge"`
	Timeout          int                    `json:"timeout,omitempty"`
	RPID             string                 `json:"rpId,omitempty"`
	AllowCredentials []descriptorJSON       `json:"allowCredentials"`
	UserVerification string                 `json:"userVerification,omitempty"`
	Extensions       map[string]interface{} `json:"extensions,omitempty"`
}

type creationOptionsJSON struct {
	RP struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"rp"`
	User struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
	} `json:"user"`
	Challenge              string                          `json:"challenge"`
	PubKeyCredParams       []protocol.CredentialParameter  `json:"pubKeyCredParams"`
	Timeout                int                             `json:"timeout,omitempty"`
	ExcludeCredentials     []descriptorJSON                `json:"excludeCredentials"`
	AuthenticatorSelection protocol.AuthenticatorSelection `json:"authenticatorSelection"`
	Attestation            string                          `json:"attestation,omitempty"`
	Extensions             map[string]interface{}          `json:"extensions,omitempty"`
}

func descriptors(list []protocol.CredentialDescriptor) []descriptorJSON {
	out := make([]descriptorJSON, 0, len(list))
	for _, d := range list {
		item := descriptorJSON{Type: string(d.Type), ID: b64.EncodeToString(d.CredentialID)}
		for _, t := range d.Transport {
			item.Transports = append(item.Transports, string(t))
		}
		out = append(out, item)
	}
	return out
}

// MARK: ceremonies

func (s *server) saveCeremony(ctx context.Context, kind string, session *webauthn.SessionData, name, displayName *string) error {
	state, err := json.Marshal(session)
	if err != nil {
		return err
	}
	_, err = s.db.Exec(ctx,
		"INSERT INTO go_ceremonies (challenge, kind, user_name, display_name, session, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
		session.Challenge, kind, name, displayName, state, time.Now().Add(s.ttl))
	return err
}

// takeCeremony consumes the ceremony of this challenge: one DELETE … RETURNING, so it is used at most once.
func (s *server) takeCeremony(ctx context.Context, kind, challenge string) (webauthn.SessionData, *string, *string, error) {
	var session webauthn.SessionData
	var state []byte
	var name, displayName *string
	var expiresAt time.Time
	err := s.db.QueryRow(ctx,
		"DELETE FROM go_ceremonies WHERE challenge = $1 AND kind = $2 RETURNING session, user_name, display_name, expires_at",
		challenge, kind).Scan(&state, &name, &displayName, &expiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return session, nil, nil, fail(http.StatusBadRequest, "challenge_unknown_or_expired", "no pending ceremony has this challenge")
	}
	if err != nil {
		return session, nil, nil, err
	}
	if time.Now().After(expiresAt) {
		return session, nil, nil, fail(http.StatusBadRequest, "challenge_unknown_or_expired", "the ceremony expired")
	}
	if err := json.Unmarshal(state, &session); err != nil {
		return session, nil, nil, err
	}
	return session, name, displayName, nil
}

// MARK: authentication

// POST /v1/authentication/begin {}: a discoverable-credential request.
func (s *server) beginAuthentication(r *http.Request, body []byte) (int, interface{}, error) {
	assertion, session, err := s.web.BeginDiscoverableLogin()
	if err != nil {
		return 0, nil, err
	}
	if err := s.saveCeremony(r.Context(), "authentication", session, nil, nil); err != nil {
		return 0, nil, err
	}
	options := assertion.Response
	return http.StatusOK, map[string]interface{}{"publicKey": requestOptionsJSON{
		Challenge:        b64.EncodeToString(options.Challenge),
		Timeout:          options.Timeout,
		RPID:             options.RelyingPartyID,
		AllowCredentials: descriptors(options.AllowedCredentials),
		UserVerification: string(options.UserVerification),
		Extensions:       options.Extensions,
	}}, nil
}

// POST /v1/authentication/finish {"credential": AuthenticationResponseJSON}.
func (s *server) finishAuthentication(r *http.Request, body []byte) (int, interface{}, error) {
	ctx := r.Context()
	var request struct {
		Credential json.RawMessage `json:"credential"`
	}
	if err := json.Unmarshal(body, &request); err != nil || len(request.Credential) == 0 {
		return 0, nil, fail(http.StatusBadRequest, "malformed_json", "expected {\"credential\": …}")
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(request.Credential))
	if err != nil {
		return 0, nil, verification(err)
	}
	session, _, _, err := s.takeCeremony(ctx, "authentication", parsed.Response.CollectedClientData.Challenge)
	if err != nil {
		return 0, nil, err
	}

	var found *user
	var lookupErr error
	var storedCount int64
	lookup := func(rawID, userHandle []byte) (webauthn.User, error) {
		u := &user{}
		var publicKey []byte
		err := s.db.QueryRow(ctx,
			`SELECT c.public_key, c.sign_count, u.user_handle, u.name, u.display_name
			   FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = $1`,
			rawID).Scan(&publicKey, &storedCount, &u.handle, &u.name, &u.displayName)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		u.credentials = []webauthn.Credential{{
			ID: rawID, PublicKey: publicKey, AttestationType: "none",
			Authenticator: webauthn.Authenticator{SignCount: uint32(storedCount)},
		}}
		found = u
		return u, nil
	}
	credential, err := s.web.ValidateDiscoverableLogin(lookup, session, parsed)
	if err != nil {
		if errors.Is(lookupErr, pgx.ErrNoRows) {
			return 0, nil, fail(http.StatusNotFound, "credential_unknown", "no credential has this id")
		}
		if lookupErr != nil {
			return 0, nil, lookupErr
		}
		return 0, nil, verification(err)
	}
	if credential.Authenticator.CloneWarning {
		return 0, nil, fail(http.StatusUnprocessableEntity, "sign_count_regressed", "the signature counter did not increase")
	}
	status := "not_supported"
	if credential.Authenticator.SignCount > uint32(storedCount) {
		status = "increased"
	}
	// The counter, compare-and-set against the value read: a concurrent sign-in with the same credential loses.
	tag, err := s.db.Exec(ctx,
		"UPDATE credentials SET sign_count = $1, last_used_at = now() WHERE id = $2 AND sign_count = $3",
		int64(credential.Authenticator.SignCount), credential.ID, storedCount)
	if err != nil {
		return 0, nil, err
	}
	if tag.RowsAffected() != 1 {
		return 0, nil, fail(http.StatusConflict, "sign_count_conflict", "the credential was used concurrently")
	}
	return http.StatusOK, map[string]interface{}{
		"user": map[string]string{"id": b64.EncodeToString(found.handle), "name": found.name, "displayName": found.displayName},
		"credential": map[string]interface{}{
			"id": b64.EncodeToString(credential.ID), "signCount": credential.Authenticator.SignCount,
		},
		"userVerified":    parsed.Response.AuthenticatorData.Flags.UserVerified(),
		"signCountStatus": status,
	}, nil
}

// MARK: registration

// POST /v1/registration/begin {"user":{"name","displayName"?}}: a sign-up (409 user_exists when the name is taken).
func (s *server) beginRegistration(r *http.Request, body []byte) (int, interface{}, error) {
	ctx := r.Context()
	var request struct {
		User struct {
			Name        string `json:"name"`
			DisplayName string `json:"displayName"`
		} `json:"user"`
	}
	if err := json.Unmarshal(body, &request); err != nil {
		return 0, nil, fail(http.StatusBadRequest, "malformed_json", err.Error())
	}
	name, displayName := request.User.Name, request.User.DisplayName
	if name == "" || len(name) > 256 {
		return 0, nil, fail(http.StatusBadRequest, "invalid_user_entity", "user.name: 1 to 256 bytes")
	}
	if displayName == "" {
		displayName = name
	}
	var taken bool
	if err := s.db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM users WHERE name = $1)", name).Scan(&taken); err != nil {
		return 0, nil, err
	}
	if taken {
		return 0, nil, fail(http.StatusConflict, "user_exists", "the name is taken")
	}
	handle := make([]byte, 32)
	if _, err := rand.Read(handle); err != nil {
		return 0, nil, err
	}
	creation, session, err := s.web.BeginRegistration(&user{handle: handle, name: name, displayName: displayName})
	if err != nil {
		return 0, nil, err
	}
	if err := s.saveCeremony(ctx, "registration", session, &name, &displayName); err != nil {
		return 0, nil, err
	}
	options := creation.Response
	var answer creationOptionsJSON
	answer.RP.ID, answer.RP.Name = options.RelyingParty.ID, options.RelyingParty.Name
	answer.User.ID, answer.User.Name, answer.User.DisplayName = b64.EncodeToString(options.User.ID), options.User.Name, options.User.DisplayName
	answer.Challenge = b64.EncodeToString(options.Challenge)
	answer.PubKeyCredParams = options.Parameters
	answer.Timeout = options.Timeout
	answer.ExcludeCredentials = descriptors(options.CredentialExcludeList)
	answer.AuthenticatorSelection = options.AuthenticatorSelection
	answer.Attestation = string(options.Attestation)
	answer.Extensions = options.Extensions
	return http.StatusOK, map[string]interface{}{"publicKey": answer}, nil
}

// POST /v1/registration/finish {"credential": RegistrationResponseJSON}: the user and the credential, in one
// transaction.
func (s *server) finishRegistration(r *http.Request, body []byte) (int, interface{}, error) {
	ctx := r.Context()
	var request struct {
		Credential json.RawMessage `json:"credential"`
	}
	if err := json.Unmarshal(body, &request); err != nil || len(request.Credential) == 0 {
		return 0, nil, fail(http.StatusBadRequest, "malformed_json", "expected {\"credential\": …}")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(request.Credential))
	if err != nil {
		return 0, nil, verification(err)
	}
	session, name, displayName, err := s.takeCeremony(ctx, "registration", parsed.Response.CollectedClientData.Challenge)
	if err != nil {
		return 0, nil, err
	}
	newUser := &user{handle: session.UserID, name: *name, displayName: *displayName}
	credential, err := s.web.CreateCredential(newUser, session, parsed)
	if err != nil {
		return 0, nil, verification(err)
	}
	var key webauthncose.PublicKeyData
	if err := webauthncbor.Unmarshal(credential.PublicKey, &key); err != nil {
		return 0, nil, fail(http.StatusBadRequest, "malformed_attestation_object", "credential public key")
	}
	authData := parsed.Response.AttestationObject.AuthData
	flags := byte(authData.Flags)
	backupEligible, backupState := flags&0x08 != 0, flags&0x10 != 0
	transports := []string{} // this version of the library does not read response.transports
	err = s.db.BeginFunc(ctx, func(tx pgx.Tx) error {
		var userID int64
		if err := tx.QueryRow(ctx, "INSERT INTO users (user_handle, name, display_name) VALUES ($1, $2, $3) RETURNING id",
			newUser.handle, newUser.name, newUser.displayName).Scan(&userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, backup_eligible, backup_state, uv_initialized,
			     transports, aaguid, attestation_format, attestation_object, client_data_json)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			credential.ID, userID, credential.PublicKey, key.Algorithm, int64(credential.Authenticator.SignCount),
			backupEligible, backupState, authData.Flags.UserVerified(), transports, uuid(credential.Authenticator.AAGUID),
			credential.AttestationType, []byte(parsed.Raw.AttestationResponse.AttestationObject),
			[]byte(parsed.Raw.AttestationResponse.ClientDataJSON))
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		if pgErr.ConstraintName == "credentials_pkey" {
			return 0, nil, fail(http.StatusConflict, "credential_already_registered", "this credential id is registered")
		}
		return 0, nil, fail(http.StatusConflict, "user_exists", "the name is taken")
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, map[string]interface{}{
		"user": map[string]string{"id": b64.EncodeToString(newUser.handle), "name": newUser.name, "displayName": newUser.displayName},
		"credential": map[string]interface{}{
			"id": b64.EncodeToString(credential.ID), "publicKeyAlgorithm": key.Algorithm, "signCount": credential.Authenticator.SignCount,
			"backupEligible": backupEligible, "backedUp": backupState, "transports": transports,
		},
	}, nil
}

// uuid formats the AAGUID as PostgreSQL's uuid text.
func uuid(aaguid []byte) string {
	if len(aaguid) != 16 {
		aaguid = make([]byte, 16)
	}
	h := hex.EncodeToString(aaguid)
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])
}
