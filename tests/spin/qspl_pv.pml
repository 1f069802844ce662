/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (C) 2026 xen-pv-suite developers
 *
 * SPIN model of the paravirtual wait/kick handshake of qspinlock-pv
 * (src/qspinlock/qspl_core.c): queued waiters halting on their MCS node,
 * the queue head halting on the lock with the lock hashed and the locked
 * byte QSPL_SLOW, the owner hashing the lock for a halted successor when
 * it passes the queue on, and the unlocker unhashing, marking the node
 * unhashed (so the head hashes again before it halts again) and kicking.
 *
 * NCPU CPUs take one lock ROUNDS times each; every step below that the
 * C code does with one atomic instruction is one atomic step here, and
 * every other shared access is a step of its own, so SPIN explores all
 * their interleavings (sequentially consistent: the C code's barriers
 * are what makes that assumption hold; the BROKEN_WAITER_ORDER variant
 * shows what a missing store-load barrier would do).  Spinning is not
 * modelled as a loop: a waiter that spins for a while is a waiter that
 * takes its next step later, which interleaving already covers.
 *
 * The hypervisor: wait() clears the CPU's pending bit, tests the awaited
 * value, and if it still holds blocks until the pending bit is set
 * (SCHEDOP_poll returns at once on a pending port); kick() sets it.
 *
 * Properties:
 *  - mutual exclusion and the hash invariants: assertions.  Built with
 *    -DSPURIOUS, wait() may also return for no reason, as it may on Xen.
 *  - no lost wakeup: without spurious returns, a CPU only leaves wait()
 *    when kicked, so a kick that never comes leaves it blocked forever,
 *    which pan reports as an invalid end state (all other CPUs finished
 *    or blocked).  The same check catches any other deadlock.
 *  - -DUNFAIR: the pv-unfair mode (lock stealing at slowpath entry, the
 *    head sets pending while it spins, and re-hashes after a steal).
 *
 * Deliberately broken variants that tests/spin/check.sh expects to fail:
 *  - BROKEN_WAITER_ORDER: the queued waiter tests node->locked before it
 *    publishes HALTED (a missing store-load barrier); the owner passing
 *    the queue on sees RUNNING and nobody ever kicks the waiter.
 *  - BROKEN_KICK_EARLY: the unlocker kicks before it clears the locked
 *    byte; the head can take the kick, see QSPL_SLOW still set and halt
 *    again, for good.
 *  - BROKEN_SLOW_FIRST: the head sets QSPL_SLOW before inserting its hash
 *    entry; an unlocker can find QSPL_SLOW and no entry.
 *  - BROKEN_NEST_CLEAR: a wait in an interrupt that arrives between the
 *    test and the poll clears the pending bit too (the backends let only
 *    the outermost wait on a CPU clear it); the outer wait's kick is lost.
 *    (A nested wait that does not clear changes nothing here: at worst
 *    it returns at once, so it is not modelled.)
 *  - BROKEN_REHASH_EARLY: the head hashes again as soon as it sees
 *    node->unhashed, before that unlocker has released: the release
 *    wipes the new QSPL_SLOW and the new entry is left behind.
 *  - BROKEN_OWNER_REHASH: the head takes a locked byte that is not
 *    QSPL_SLOW to mean "my entry is gone" (instead of node->unhashed) and
 *    hashes again, although the owner hashing for it may not have set
 *    QSPL_SLOW yet: two entries for one lock.
 */

#ifndef NCPU
#define NCPU	3
#endif
#ifndef ROUNDS
#define ROUNDS	2
#endif

/* locked byte */
#define FREE	0
#define LOCKED	1
#define SLOW	3
/* node state */
#define RUNNING	0
#define HALTED	1
#define HASHED	2

byte locked;		/* the locked byte */
bit pending;
byte tail;		/* 0: no queue, else CPU + 1 */

bit nlocked[NCPU];	/* node->locked */
byte nstate[NCPU];	/* node->state */
byte nnext[NCPU];	/* node->next: 0 or CPU + 1 */
bit nunhashed[NCPU];	/* node->unhashed */

/* The hash table, for the one lock: how many entries, and whose. */
byte hcount;
byte hnode;

bit pend[NCPU];		/* the CPU's event channel is pending */
bit halted[NCPU];	/* blocked in the hypervisor */
byte incs;		/* CPUs in the critical section */

/*
 * wait(): clear the kick, test, block until kicked.  The test and the
 * block are separate steps (the C code tests, then polls), but Xen's
 * poll itself returns at once on a pending port, hence the guard.
 */
inline pv_wait(me, cond)
{
	pend[me] = 0;
	if
	:: (cond) ->
#ifdef BROKEN_NEST_CLEAR
		/* an interrupt here whose own wait clears our kick */
		if
		:: pend[me] = 0
		:: skip
		fi;
#endif
		halted[me] = 1;
		if
		:: pend[me] == 1
#ifdef SPURIOUS
		:: true
#endif
		fi;
		halted[me] = 0
	:: else
	fi
}

inline kick(c)
{
	pend[c] = 1
}

inline hash_insert(c)
{
	atomic {
		/* One entry per lock: never a second one. */
		assert(hcount == 0);
		hcount = 1;
		hnode = c
	}
}

proctype cpu(byte me)
{
	byte round = 0;
	byte prev, nxt, old;
	bit got, mine;

next_round:
	got = 0;
	/* fast path: cmpxchg(0 -> LOCKED) */
	atomic {
		if
		:: locked == FREE && !pending && tail == 0 ->
			locked = LOCKED; got = 1
		:: else
		fi
	}
	if
	:: got -> goto cs
	:: else
	fi;
#ifdef UNFAIR
	/*
	 * qspl_steal(): take a free lock while the head is not spinning;
	 * queue when there is no queue or the head spins (pending).  While
	 * neither holds, it spins: blocked here until one does.
	 */
	do
	:: atomic { locked == FREE && !pending -> locked = LOCKED; got = 1 };
		break
	:: tail == 0 || pending -> break
	od;
	if
	:: got -> goto cs
	:: else
	fi;
#endif
	/* queue: initialise our node, try once more, publish the tail */
	nlocked[me] = 0;
	nnext[me] = 0;
	nstate[me] = RUNNING;
	nunhashed[me] = 0;
	atomic {
		if
		:: locked == FREE && !pending && tail == 0 ->
			locked = LOCKED; got = 1
		:: else
		fi
	}
	if
	:: got -> goto cs
	:: else
	fi;
	atomic { prev = tail; tail = me + 1 };

	if
	:: prev != 0 ->
		nnext[prev - 1] = me + 1;
		/* qspl_pv_wait_node() */
		do
		:: nlocked[me] -> break
		:: !nlocked[me] ->
#ifdef BROKEN_WAITER_ORDER
			if
			:: !nlocked[me] ->
				nstate[me] = HALTED;
				pv_wait(me, nstate[me] == HALTED)
			:: else
			fi;
#else
			nstate[me] = HALTED;
			if
			:: !nlocked[me] -> pv_wait(me, nstate[me] == HALTED)
			:: else
			fi;
#endif
			atomic {
				if
				:: nstate[me] == HALTED -> nstate[me] = RUNNING
				:: else
				fi
			}
		od
	:: else
	fi;

	/* qspl_pv_wait_head(): we are the queue head */
	mine = (nstate[me] == HASHED);
	do
	:: true ->
		nstate[me] = RUNNING;
#ifdef UNFAIR
		pending = 1;
#endif
		/* spin: the lock may or may not be seen free in time */
		if
		:: atomic { locked == FREE -> locked = LOCKED; pending = 0 };
			break
		:: true
		fi;
#ifdef UNFAIR
		pending = 0;
#endif
		/* unhashed, and released by that unlocker: two reads */
		if
		:: mine && nunhashed[me] ->
			if
#ifdef BROKEN_REHASH_EARLY
			:: true -> mine = 0
#else
			:: locked != SLOW -> mine = 0
			:: else
#endif
			fi
		:: else
		fi;
#ifdef BROKEN_OWNER_REHASH
		/* the naive test: a clear byte taken to mean "unhashed" */
		if
		:: mine && locked != SLOW -> mine = 0
		:: else
		fi;
#endif
		if
		:: !mine ->
			nunhashed[me] = 0;
#ifdef BROKEN_SLOW_FIRST
			atomic { old = locked; locked = SLOW };
			hash_insert(me);
#else
			hash_insert(me);
			atomic { old = locked; locked = SLOW };
#endif
			if
			:: old == FREE ->
				/* it was free: ours; back to LOCKED, unhash */
				locked = LOCKED;
				hcount = 0;
				break
			:: else -> mine = 1
			fi
		:: else
		fi;
		nstate[me] = HASHED;
		pv_wait(me, locked == SLOW)
	od;

	/* claim: last in the queue? then clear the tail with the lock */
	atomic {
		if
		:: tail == me + 1 -> tail = 0; got = 1
		:: else
		fi
	}
	if
	:: !got ->
		/* wait for the successor to link, pass the queue on */
		nnext[me] != 0;
		nxt = nnext[me] - 1;
		nlocked[nxt] = 1;
		atomic {
			if
			:: nstate[nxt] == HALTED -> nstate[nxt] = HASHED; got = 1
			:: else
			fi
		}
		if
		:: got ->
			hash_insert(nxt);
			atomic { assert(locked == LOCKED); locked = SLOW }
		:: else
		fi
	:: else
	fi;

cs:
	atomic { incs++; assert(incs == 1) };
	incs--;

	/* unlock: cmpxchg(LOCKED -> FREE), else the slow path */
	atomic {
		assert(locked == LOCKED || locked == SLOW);
		if
		:: locked == LOCKED -> locked = FREE; got = 0
		:: else -> got = 1
		fi
	}
	if
	:: got ->
		atomic {
			assert(locked == SLOW && hcount == 1);
			nxt = hnode;
			hcount = 0
		}
		nunhashed[nxt] = 1;
#ifdef BROKEN_KICK_EARLY
		kick(nxt);
		locked = FREE;
#else
		locked = FREE;
		kick(nxt);
#endif
	:: else
	fi;

	round++;
	if
	:: round < ROUNDS -> goto next_round
	:: else
	fi
}

init {
	byte i;

	atomic {
		for (i : 0 .. NCPU - 1) {
			run cpu(i)
		}
	}
}
