package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
)

// errIssuerChanged: the server's authorization server is no longer the
// one the stored client and tokens belong to.
var errIssuerChanged = errors.New("the authorization server changed")

// sameIssuer refuses to use rec's client or tokens at an authorization
// server other than the one that issued them (a server whose protected
// resource metadata now name another): its client id and refresh token
// would leak there. A record from before issuers were kept is used as is.
func sameIssuer(ctx context.Context, h *transport.OAuthHandler, rec tokenRecord) error {
	if rec.Issuer == "" {
		return nil
	}
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return err
	}
	if md.Issuer != rec.Issuer {
		return fmt.Errorf("%w from %s to %s: the stored client and tokens are not sent there; log in again (ollm registers anew)", errIssuerChanged, rec.Issuer, md.Issuer)
	}
	return nil
}
