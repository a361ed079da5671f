// Package commands is the board's request logic, free of HTTP:
//
//	view, req, err := commands.Decode(commands.Input{Cmd: "AllView"}, 30)
//	res, err := view.Run(ctx, store, req)
//
// It holds the three views the lab compares, the validation of a posted
// message, and the accounting of the SQL statements and connections each
// request uses. Every command first stores the posted message when there is
// one (the update part), then reads the newest posts (the view part). The
// three commands differ only in how they read, which is a Fetch passed as a
// value:
//
//	AllView      one query for all posts
//	OnceGetView  one connection, then one single-row query per post (N+1)
//	EachGetView  for each post: acquire a connection, one query, release
package commands

import (
	"context"
	"errors"
	"fmt"

	"bbslab/entity"
)

// A Fetch reads the n newest posts a view shows, newest first, accounting
// for every acquire and statement in t. The three commands differ only here.
type Fetch func(ctx context.Context, s entity.Store, n int, t *Tally) ([]entity.Post, error)

// A View stores the posted message if there is one, then fetches the newest
// posts.
type View struct {
	name  string
	fetch Fetch
}

// The three commands of the article.
var (
	AllView     = &View{name: "AllView", fetch: fetchAll}
	OnceGetView = &View{name: "OnceGetView", fetch: fetchOnce}
	EachGetView = &View{name: "EachGetView", fetch: fetchEach}
)

// Views lists the commands in the order the page shows them.
var Views = []*View{AllView, OnceGetView, EachGetView}

// Lookup returns the command with the given name.
func Lookup(name string) (*View, bool) {
	for _, v := range Views {
		if v.name == name {
			return v, true
		}
	}
	return nil, false
}

// Name returns the command's name, as used in the cmd parameter.
func (v *View) Name() string { return v.name }

// Request is a validated command request.
type Request struct {
	NewPost *NewPost // the message to store first, or nil
	N       int      // posts to show
}

// Result is what a command did and read.
type Result struct {
	Posted *entity.Post  // the stored post, when the request had one
	Posts  []entity.Post // the newest posts, newest first
	Tally  Tally         // statements, acquires and time in the database
}

// Run runs the command: the update part, then the view part.
func (v *View) Run(ctx context.Context, s entity.Store, req Request) (Result, error) {
	var res Result
	if req.NewPost != nil {
		p, err := insert(ctx, s, *req.NewPost, &res.Tally)
		if err != nil {
			return res, fmt.Errorf("%s: store post: %w", v.name, err)
		}
		res.Posted = &p
	}
	posts, err := v.fetch(ctx, s, req.N, &res.Tally)
	if err != nil {
		return res, fmt.Errorf("%s: read %d posts: %w", v.name, req.N, err)
	}
	res.Posts = posts
	return res, nil
}

// insert stores one post on a connection of its own.
func insert(ctx context.Context, s entity.Store, p NewPost, t *Tally) (entity.Post, error) {
	c, err := acquireConn(ctx, s, t)
	if err != nil {
		return entity.Post{}, err
	}
	defer release(c, t)
	var post entity.Post
	err = inSQL(func() (err error) { post, err = c.Insert(ctx, p.Name, p.Message); return err })
	return post, err
}

// fetchAll reads every post in one query.
func fetchAll(ctx context.Context, s entity.Store, n int, t *Tally) ([]entity.Post, error) {
	c, err := acquireConn(ctx, s, t)
	if err != nil {
		return nil, err
	}
	defer release(c, t)
	var posts []entity.Post
	err = inSQL(func() (err error) { posts, err = c.Newest(ctx, n); return err })
	return posts, err
}

// fetchOnce takes one connection and runs one single-row query per post on it.
func fetchOnce(ctx context.Context, s entity.Store, n int, t *Tally) ([]entity.Post, error) {
	c, err := acquireConn(ctx, s, t)
	if err != nil {
		return nil, err
	}
	defer release(c, t)
	posts := make([]entity.Post, 0, n)
	next := entity.MaxNo
	for len(posts) < n {
		var p entity.Post
		err := inSQL(func() (err error) { p, err = c.Before(ctx, next); return err })
		if errors.Is(err, entity.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		posts = append(posts, p)
		next = p.No
	}
	return posts, nil
}

// fetchEach takes a connection from the pool for each single-row query and
// gives it back after it.
func fetchEach(ctx context.Context, s entity.Store, n int, t *Tally) ([]entity.Post, error) {
	posts := make([]entity.Post, 0, n)
	next := entity.MaxNo
	for len(posts) < n {
		p, err := fetchOne(ctx, s, next, t)
		if errors.Is(err, entity.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		posts = append(posts, p)
		next = p.No
	}
	return posts, nil
}

// fetchOne acquires a connection, reads the post below no and releases it.
func fetchOne(ctx context.Context, s entity.Store, no int64, t *Tally) (entity.Post, error) {
	c, err := acquireConn(ctx, s, t)
	if err != nil {
		return entity.Post{}, err
	}
	defer release(c, t)
	var p entity.Post
	err = inSQL(func() (err error) { p, err = c.Before(ctx, no); return err })
	return p, err
}
