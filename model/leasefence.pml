/*
 * leasefence's protocol as a Promela model, checked exhaustively by Spin (docs/PROTOCOL.md reads it as prose).
 *
 * ONE work item (one identity) and everything that can touch it: NW workers that stall (any interleaving), crash
 * (losing everything local), lose responses and send renewals that arrive late; SQS as a bag of wake-up messages
 * with loss, duplicates and (a bag has no order) reordering; the sweeper; an operator (cancel, retry, resolve, the
 * class D statement, approve/reject, raise-fences after a restore); and the resource of the job's target class.
 *
 * Every DynamoDB conditional write is one `atomic` block (the engine applies it whole); everything a worker does
 * between two writes is a separate step, so another process may act in between. A configuration is chosen with
 * -D macros (model/check runs each): CLS (1..4 = class A..D), SUCC (1 transactional successors, 2 durable-step
 * successors), APPROVAL, EPOCH; the bounds NW, MAXA, MAXMSG, FAULTS, OPS, RENEWS.
 * A mutation (MUT_*) switches one rule of the protocol off; model/mutations lists them and what must catch each.
 *
 * Properties are assertions: INV after every write of the row or a resource (so they hold in every reachable
 * state) and local ones where a worker acts or reports; liveness is the LTL formula `terminates` (checked with
 * weak fairness, -a -f).
 */

#ifndef NW
#define NW 2
#endif
#ifndef CLS
#define CLS 1
#endif
#if CLS == 4
#define MAXA 1 /* defineJob refuses a class D job with more than one attempt */
#endif
#ifndef MAXA
#define MAXA 2
#endif
#ifndef MAXMSG
#define MAXMSG 2
#endif
#ifndef FAULTS
#define FAULTS 2 /* faults per run, of any kind: crash, lost message, duplicate message, lost response, late renewal copy */
#endif
#ifndef OPS
#define OPS 1
#endif
#ifndef RENEWS
#define RENEWS 0 /* the lease configuration sets 2 */
#endif
#ifndef SUCC
#define SUCC 0
#endif

/* work-item states */
#define NONE 0
#define AWAIT 1
#define QUEUED 2
#define CLAIMED 3
#define SUCCEEDED 4
#define FAILED_TERMINAL 5
#define UNKNOWN 6
#define CANCELLED 7

/* A fence is epoch * UNIT + counter (the code's 2^40): UNIT exceeds every counter the bounds can reach. */
#define UNIT 16

/* ---- the work row (jobs table) ---- */
byte st = NONE;
byte fence = 0;
byte attempts = 0;
bit expired = 0;     /* the lease's deadline has passed in real time */
byte ltok = 0;       /* the lease token: leaseExpiresAt as last written (renewals raise it within one claim) */
bit mark = 0;        /* effectMayHaveHappened */
byte stepF = 0;      /* class A: the fence that recorded the step done (0 = not done) */
byte succStep = 0;   /* durable successors: the fence of the lf:successors step (0 = not done) */
bit outcome = 0;     /* a committed outcome: a holder's completion or an operator's audited resolve */
byte rowHash = 0;    /* payloadHash bound at creation */
byte approvedHash = 0;
bit approvalExpired = 0;

/* ---- SQS: a bag of wake-up messages (no order: any message may be received first) ---- */
byte msgs = 1;       /* the producer's first message */

/* ---- resources ---- */
byte effA = 0;       /* class A: times the step's business write landed */
byte recEpoch = 0;   /* class B: the record's writer_epoch */
byte recMax = 0;     /* ghost: the highest fence whose record write landed */
bit keyPresent = 0;  /* class C: the provider holds the idempotency key */
bit keyStale = 0;    /* class C: the row's last attempt started longer ago than keyRetentionMs */
byte effC = 0;       /* class C: effects at the provider */
byte effD = 0;       /* class D: effects at the external system */
byte dCalls = 0;     /* class D: calls since the last truthful operator statement */
byte succRows = 0;   /* successor rows created */

/* ---- ghosts ---- */
bit may = 0;         /* an earlier claim may have started the effect (cleared only by a truthful statement) */
bit resolved = 0;    /* the outcome came from an operator's resolve */
byte holders = 0;    /* workers between a claim and the end of that attempt (alive, maybe stale) */
#if CLS == 3 || CLS == 4
/* The statement's guard (classes C and D): time since the row's last claim, against the worker's timeout. */
bit runOpen = 0;     /* the row's claimedAt + the worker's timeout (LEASEFENCE_WORKER_MAX_RUN_MS) is still ahead */
bit holds[NW];       /* the worker's invocation holds a claim: Lambda ends it once the timeout has passed */
#define STAMP_CLAIM runOpen = 1; holds[me] = 1
#define UNHOLD holds[me] = 0
#else
#define STAMP_CLAIM skip
#define UNHOLD skip
#endif
/* fence epochs */
byte epoch = 0;      /* the deployment's fence-epoch row */
byte cache[NW];      /* each worker's cached epoch */
byte snapSt, snapFence, snapAttempts, snapRec;
bit snapped = 0, restored = 0, raiseDone = 0, raising = 0;
byte maxIssued = 0;  /* the highest fence ever issued (claim, create, cancel, sweep, retry) */
byte maxBefore = 0;  /* ... at the moment the raise began */

/* ---- fault and action budgets ---- */
byte faults = FAULTS, ops = OPS, renews = RENEWS;
bit kill[NW];
bit busy[NW];        /* the worker holds a message (a crash then returns it after its visibility timeout) */
/* a renewal's copy still in the network (a late duplicate): its fence and expected token */
bit late[NW];
byte lateF[NW], lateTok[NW];

/*
 * The step relation, extracted (model/check extract, -DEXTRACT): every write of the row records, as it executes, its
 * abstract step (event, class, state before and after, fence/attempts/mark change, whether a holder's fence was the
 * row's) in pan's output; an exhaustive search executes every transition of every reachable state, so the set
 * printed is the model's whole step relation over the row, which model/transitions.json holds and the reliability
 * suite's replay checks observed histories against (docs/PROTOCOL.md, "The code held to the model"). Without
 * -DEXTRACT the macros are skip: the checked model is the same.
 */
#define EV_CLAIM 1
#define EV_RENEW 2
#define EV_STEP 3
#define EV_COMPLETE 4
#define EV_RETRY 5
#define EV_PARK 6
#define EV_SUCCSTEP 7
#define EV_SWEEP 8
#define EV_EXPIRE 9
#define EV_CANCEL 10
#define EV_OPRETRY 11
#define EV_STATEMENT 12
#define EV_RESOLVE 13
#define EV_APPROVE 14
#define EV_REJECT 15
#define EV_RAISE 16
#define EV_RESTORE 17
#ifdef EXTRACT
c_decl {
  int lf_pst, lf_pf, lf_pa, lf_pm, lf_n;
  char lf_seen[2048][96];
  static const char *lf_ev[] = { "", "claim", "renew", "step", "complete", "retry", "park", "successors-step", "sweep",
    "expire", "cancel", "operator-retry", "statement", "resolve", "approve", "reject", "raise", "restore" };
  static const char *lf_st[] = { "none", "awaiting_approval", "queued", "claimed", "succeeded", "failed_terminal",
    "unknown", "cancelled" };
  /* prints the abstract step of the write that just executed, the first time it is seen; mine < 0: not a holder */
  void lf_obs(int ev, int st, int f, int a, int m, int holderF, int maxa) {
    char line[96];
    const char *fd = f == lf_pf ? "same" : f == lf_pf + 1 ? "+1" : f > lf_pf ? "up" : "down";
    const char *ad = a == lf_pa ? "same" : a == lf_pa + 1 ? "+1" : a == 0 ? "reset" : "other";
    const char *name = ev == 1 && lf_pst == 0 ? "create" : ev == 6 && st == 5 ? "fail" : lf_ev[ev];
    /* attempts left matters only where the model's guard reads it: a claim, a holder's retry, the sweeper */
    const char *left = (ev == 1 || ev == 5 || ev == 8) ? (lf_pa < maxa ? "yes" : "no") : "-";
    const char *mine = holderF < 0 ? "-" : holderF == lf_pf ? "yes" : "no";
    int i;
    sprintf(line, "%s %d %s %s %s %s %d%d %s %s", name, CLS, lf_st[lf_pst], lf_st[st], fd, ad, lf_pm, m, left, mine);
    for (i = 0; i < lf_n; i++) if (strcmp(lf_seen[i], line) == 0) return;
    if (lf_n < 2048) strcpy(lf_seen[lf_n++], line);
    printf("LFSTEP %s\n", line);
  }
}
#define PRE c_code { lf_pst = now.st; lf_pf = now.fence; lf_pa = now.attempts; lf_pm = now.mark; }
#define OBS(ev) c_code { lf_obs(ev, now.st, now.fence, now.attempts, now.mark, -1, MAXA); }
#define HOBS(ev) c_code { lf_obs(ev, now.st, now.fence, now.attempts, now.mark, PWorker->myF, MAXA); }
#define LOBS(ev, w) c_code { lf_obs(ev, now.st, now.fence, now.attempts, now.mark, now.lateF[w], MAXA); }
#else
#define PRE skip
#define OBS(ev) skip
#define HOBS(ev) skip
#define LOBS(ev, w) skip
#endif

#define FINAL (st == SUCCEEDED || st == FAILED_TERMINAL || st == CANCELLED || st == UNKNOWN)

/* What holds in every state: checked after every write. */
#if SUCC == 1
#define INV_SUCC assert(succRows <= 1 && ((succRows == 1) == (st == SUCCEEDED && !resolved)))
#elif SUCC == 2
#define INV_SUCC assert(succRows <= 1 && (st != SUCCEEDED || resolved || succRows == 1))
#else
#define INV_SUCC skip
#endif
#define INV \
  assert(effA <= 1 && effC <= 1 && effD <= 1 && dCalls <= 1); \
  assert(st != SUCCEEDED || outcome); \
  assert(CLS != 1 || st != SUCCEEDED || resolved || stepF != 0); \
  assert(CLS != 3 || st != SUCCEEDED || resolved || effC == 1); \
  INV_SUCC

#ifdef EPOCH
#define ISSUE(f) if :: (f) > maxIssued -> maxIssued = (f) :: else -> skip fi
#else
#define ISSUE(f) skip /* only the EPOCH configuration needs the highest fence issued (a ghost that multiplies states) */
#endif

/* succeeded is reported only with a committed outcome under my fence: unknown (or anything else) is never reported as success */
#define REPORTS_SUCCESS assert(st == SUCCEEDED && outcome && fence == myF)

/* A write by the holder of fence myF lands: it must be the current holder, never after a cancel, never an old fence after a raise. */
#define HOLDER_LANDS \
  assert(fence == myF && st == CLAIMED); \
  assert(!(raiseDone && myF <= maxBefore))

inline claimEffects() {
  sawStep = (stepF != 0);
  sawSucc = (succStep != 0);
  sawMark = mark;
  sawMay = may;
  attempts++;
  st = CLAIMED;
  expired = 0;
  ltok = 0;
  mark = 1;
#if CLS == 3
  may = 1;
#endif
  myF = fence;
  holders++;
  STAMP_CLAIM; /* claimedAt = now */
  myAtt = attempts;
  myTok = 0;
  ISSUE(fence);
  /* fences never fall across a raise: a claim after it is above every fence issued before it began */
  assert(!raiseDone || fence > maxBefore);
#ifdef APPROVAL
  /* never run while awaiting approval, never under another hash than the approved one */
  assert(approvedHash != 0 && approvedHash == rowHash);
#endif
  INV;
  OBS(EV_CLAIM)
}

/* claimed ▶ queued for a retry (retry_later), or failed_terminal when no attempt is left; then the retry's own wake-up. */
inline retryLater() {
  atomic {
    if
    :: fence == myF && st == CLAIMED ->
      PRE;
      HOLDER_LANDS;
      if
      :: myAtt < MAXA -> st = QUEUED; if :: msgs < MAXMSG -> msgs++ :: else -> skip fi
      :: else -> st = FAILED_TERMINAL
      fi;
      INV;
      HOBS(EV_RETRY)
    :: else -> skip /* ownership lost */
    fi
  }
}

inline park(to) {
  atomic {
    if
    :: fence == myF && st == CLAIMED -> PRE; HOLDER_LANDS; st = to; INV; HOBS(EV_PARK)
    :: else -> skip
    fi
  }
}

/* claimed ▶ succeeded under my fence (with the successors, SUCC 1); the report is made in the same step as what it is based on. */
inline complete() {
  atomic {
    if
#ifdef MUT_COMPLETE_NO_FENCE
    :: st == CLAIMED || st == QUEUED ->
#else
    :: fence == myF && st == CLAIMED ->
#endif
      PRE;
      HOLDER_LANDS;
      st = SUCCEEDED;
      outcome = 1;
#if SUCC == 1
      if :: succRows == 0 -> succRows = 1 :: else -> skip fi /* a replay of the same identity writes nothing */
#endif
      INV;
      HOBS(EV_COMPLETE);
      if
      :: faults > 0 -> faults--; goto recheck /* the response is lost: the SDK retries, the condition fails, read back */
      :: true -> REPORTS_SUCCESS; goto released
      fi
    :: else -> goto recheck
    fi
  };
recheck:
  /* appliedIn: the item shows this very completion under my fence */
  atomic {
#ifdef MUT_LOST_RESPONSE_IS_SUCCESS
    REPORTS_SUCCESS
#else
    if :: st == SUCCEEDED && fence == myF && !resolved -> REPORTS_SUCCESS :: else -> skip fi
#endif
  }
}

proctype Worker(byte me) {
  byte myF, myTok, myAtt;
  bit sawStep, sawSucc, sawMark, sawMay, crashed, found, recon;

end_idle:
  do
  :: atomic { msgs > 0 -> msgs--; busy[me] = 1 }
    {
      /* ---- the claim: one conditional write (create, or claim an existing row) ---- */
      atomic {
        if
        :: st == NONE && !(restored && !raiseDone) ->
          PRE;
#ifdef APPROVAL
          /* a gated job's first message creates its row awaiting approval: no lease, no claim */
          st = AWAIT; rowHash = 1; INV; OBS(EV_CLAIM); goto released
#else
          rowHash = 1;
#ifdef MUT_CREATE_IGNORES_EPOCH
          fence = 0;
#else
          fence = cache[me] * UNIT; /* the epoch's floor, from this store's cached epoch */
#endif
          fence++;
          claimEffects()
#endif
#ifdef MUT_CLAIM_WHILE_AWAITING
        :: (st == QUEUED || st == AWAIT || (st == CLAIMED && expired)) && attempts < MAXA && !(restored && !raiseDone) ->
#else
        :: (st == QUEUED || (st == CLAIMED && expired)) && attempts < MAXA ->
#endif
          PRE;
          fence++;
          claimEffects()
        :: else -> goto notClaimable
        fi
      };

      /* a heartbeat (bounded): a compare-and-swap of my own lease token */
      if
      :: renews > 0 ->
        atomic {
          renews--;
          if
#ifdef MUT_RENEW_NO_TOKEN
          :: fence == myF && st == CLAIMED ->
#else
          :: fence == myF && st == CLAIMED && ltok == myTok ->
#endif
            PRE;
            assert(myTok + 1 > ltok); /* a lease never moves back */
            ltok = myTok + 1; expired = 0;
            HOBS(EV_RENEW);
            if :: faults > 0 -> faults--; late[me] = 1; lateF[me] = myF; lateTok[me] = myTok :: skip fi;
            myTok = myTok + 1
          :: else -> goto released /* ownership lost or lease in doubt: nothing more is written */
          fi
        }
      :: skip
      fi;

      /* ---- the job's body, by target class ---- */
#if CLS == 1
      /* class A: one step, a TransactWriteItems of the business write + the fenced work-item update marking it done */
      if
      :: !sawStep ->
#ifdef MUT_A_BARE_CHECK
        atomic {
          if
          :: fence == myF && st == CLAIMED -> HOLDER_LANDS; effA++; INV
          :: else -> goto released
          fi
        };
        atomic { if :: fence == myF && st == CLAIMED -> stepF = myF :: else -> goto released fi }
#else
        atomic {
          if
          :: fence == myF && st == CLAIMED && stepF == 0 -> PRE; HOLDER_LANDS; effA++; stepF = myF; INV; HOBS(EV_STEP)
          :: else -> goto released /* newer claim: OwnershipLostError */
          fi
        }
#endif
      :: else -> skip /* a new holder skips a step an earlier holder recorded */
      fi;
#elif CLS == 2
      /* class B: one record write carrying writer_epoch < my fence */
      atomic {
        if
#ifdef MUT_B_NO_EPOCH
        :: true ->
#else
        :: recEpoch < myF ->
#endif
          /* an older claim never overwrites a newer one; a cancelled holder lands nothing */
          assert(myF > recMax && st != CANCELLED);
          recEpoch = myF; recMax = myF; INV
        :: else -> goto released /* newer_claim */
        fi
      };
#elif CLS == 3
      /* class C: reconcile first whenever an earlier claim may have started the effect */
#ifdef MUT_C_RECONCILE_ON_ATTEMPT
      if :: myAtt > 1 ->
#else
      if :: sawMark ->
#endif
        atomic {
          recon = 1;
          if
          :: keyPresent -> found = 1
          :: !keyPresent && !keyStale -> found = 0
          :: keyStale -> goto cannotTell /* the lookup can no longer tell */
          fi
        };
        if
        :: found -> goto succeed /* done: the reconciled outcome */
        :: else -> skip
        fi
      :: else -> skip
      fi;
      /* the provider call with the tenant-scoped idempotency key */
      atomic {
        /* an effect that may have started is reconciled before another call */
        assert(!sawMay || recon);
        if :: !keyPresent -> effC++; keyPresent = 1; INV :: else -> skip fi
      };
#elif CLS == 4
      /* class D: a claim that finds the mark never runs */
      if
      :: sawMark -> goto cannotTell
      :: else -> skip
      fi;
      atomic {
        dCalls++;
        if :: effD++ :: skip fi; /* the call may or may not take effect */
        INV
      };
      if
      :: true -> goto cannotTell /* any ambiguous result ▶ unknown */
      :: true -> skip
      fi;
#endif

      /* ---- the outcome ---- */
      if
      :: true -> goto succeed
      :: true -> retryLater()                  /* RetryableJobError */
      :: true -> park(FAILED_TERMINAL)         /* TerminalJobError */
      :: CLS != 4 && myAtt < MAXA -> retryLater() /* ambiguous, attempts left */
      :: CLS == 4 || myAtt >= MAXA -> goto cannotTell
      fi;
      goto released;

cannotTell:
      park(UNKNOWN);
      goto released;

succeed:
#if SUCC == 2
      /* durable successors: the fenced lf:successors step, then each row by identity (a replay writes nothing) */
      if
      :: !sawSucc ->
        atomic { if :: fence == myF && st == CLAIMED && succStep == 0 -> PRE; HOLDER_LANDS; succStep = myF; HOBS(EV_SUCCSTEP) :: else -> goto released fi }
      :: else -> skip
      fi;
      atomic { if :: succRows == 0 -> succRows = 1; INV :: else -> skip fi };
#endif
#if SUCC == 1 && defined(MUT_SUCC_OUTSIDE_FENCE)
      atomic { if :: succRows == 0 -> succRows = 1 :: else -> skip fi };
#endif
      complete();
      goto released;

notClaimable:
      skip;
released:
      skip
    } unless { atomic { kill[me] -> kill[me] = 0; crashed = 1 } };
    /* the message is acknowledged once the row committed; a crashed worker's message returns after its visibility timeout */
    atomic {
      if
      :: crashed && msgs < MAXMSG -> msgs++
      :: else -> skip
      fi;
      busy[me] = 0; kill[me] = 0; crashed = 0; myTok = 0; myAtt = 0; sawStep = 0; sawSucc = 0; sawMark = 0;
      sawMay = 0; found = 0; recon = 0;
      if :: myF != 0 -> holders-- :: else -> skip fi;
      UNHOLD;
      myF = 0
    }
  od
}

/* The environment: time (a lease lapses), SQS faults, crashes, late renewals. */
active proctype Env() {
end_env:
  do
  /* nothing else can move: the job must have ended (no state short of a final one is a dead end) */
  :: timeout -> assert(FINAL || (restored && st == NONE)) /* (a restore to before the row existed removes the job) */
  :: atomic { st == CLAIMED && !expired -> expired = 1 }
  /* a wake-up is lost (once the row exists: before it, the producer's message is the job, and SQS keeps it until acknowledged) */
  :: atomic { faults > 0 && msgs > 0 && st != NONE && !FINAL -> faults--; msgs-- }
  :: atomic { faults > 0 && msgs > 0 && msgs < MAXMSG && !FINAL -> faults--; msgs++ }
  :: atomic { faults > 0 && busy[0] && !kill[0] -> faults--; kill[0] = 1 }
  :: atomic { faults > 0 && busy[1] && !kill[1] -> faults--; kill[1] = 1 }
  :: atomic {
       late[0] ->
       if
#ifdef MUT_RENEW_NO_TOKEN
       :: fence == lateF[0] && st == CLAIMED ->
#else
       :: fence == lateF[0] && st == CLAIMED && ltok == lateTok[0] ->
#endif
         PRE; assert(lateTok[0] + 1 > ltok); ltok = lateTok[0] + 1; expired = 0; LOBS(EV_RENEW, 0)
       :: else -> skip
       fi;
       late[0] = 0; lateF[0] = 0; lateTok[0] = 0
     }
  :: atomic {
       late[1] ->
       if
#ifdef MUT_RENEW_NO_TOKEN
       :: fence == lateF[1] && st == CLAIMED ->
#else
       :: fence == lateF[1] && st == CLAIMED && ltok == lateTok[1] ->
#endif
         PRE; assert(lateTok[1] + 1 > ltok); ltok = lateTok[1] + 1; expired = 0; LOBS(EV_RENEW, 1)
       :: else -> skip
       fi;
       late[1] = 0; lateF[1] = 0; lateTok[1] = 0
     }
#if CLS == 3 || CLS == 4
  /* the worker's timeout passes since the row's last claim: Lambda ends every invocation still holding a claim
     (each claim was made inside its invocation, so none of them can outlive this); their messages return */
  :: atomic { runOpen -> runOpen = 0; kill[0] = kill[0] | holds[0]; kill[1] = kill[1] | holds[1] }
#endif
#if CLS == 3
  /* time passes while the row is parked: the provider forgets the key */
  /* (retention is far longer than a function's timeout: no holder of an earlier claim is still running then) */
  :: atomic { !keyStale && holders == 0 && (st == UNKNOWN || st == FAILED_TERMINAL) -> keyStale = 1; keyPresent = 0 }
#endif
#ifdef APPROVAL
  :: atomic { st == AWAIT && !approvalExpired -> approvalExpired = 1 }
#endif
  od
}

/* The sweeper: expired + exhausted ▶ unknown; lost wake-ups re-signalled; approvals past expiry ▶ cancelled. */
active proctype Sweeper() {
end_sweeper:
  do
#ifdef MUT_SWEEP_LIVE_LEASE
  :: atomic { st == CLAIMED && attempts >= MAXA ->
#else
  :: atomic { st == CLAIMED && expired && attempts >= MAXA ->
#endif
       PRE;
       assert(expired); /* parked with a true reason: lease_expired_attempts_exhausted */
       fence++; ISSUE(fence); st = UNKNOWN; INV; OBS(EV_SWEEP) }
#ifndef MUT_NO_RESIGNAL
  :: atomic { msgs == 0 && (st == QUEUED || (st == CLAIMED && expired && attempts < MAXA)) -> msgs++ }
#endif
#ifdef APPROVAL
  :: atomic { st == AWAIT && approvalExpired -> PRE; fence++; ISSUE(fence); st = CANCELLED; INV; OBS(EV_EXPIRE) }
#endif
  od
}

/* The operator: cancel, retry, resolve (audited, conditional on the state and fence observed), approvals, raise-fences. */
active proctype Operator() {
end_operator:
  do
  :: atomic { ops > 0 && (st == AWAIT || st == QUEUED || st == CLAIMED || st == UNKNOWN) ->
       PRE; ops--; fence++; ISSUE(fence); st = CANCELLED;
#if CLS == 2
#ifndef MUT_CANCEL_NO_STAMP
       recEpoch = fence; /* ownedRecords: the cancel stamps the records in the same transaction */
#endif
#endif
       INV; OBS(EV_CANCEL) }
  /* retry / resolve --to queued: a fresh attempt budget, the effect mark kept */
#ifdef MUT_D_NO_STATEMENT_CHECK
  :: atomic { ops > 0 && (st == UNKNOWN || st == FAILED_TERMINAL) && (CLS != 3 || !mark || !keyStale) ->
#else
  :: atomic { ops > 0 && (st == UNKNOWN || st == FAILED_TERMINAL) && (CLS != 4 || !mark) && (CLS != 3 || !mark || !keyStale) ->
#endif
       PRE; ops--; fence++; ISSUE(fence); st = QUEUED; attempts = 0;
#ifdef MUT_RETRY_CLEARS_MARK
       mark = 0;
#endif
       if :: msgs < MAXMSG -> msgs++ :: else -> skip fi;
       INV; OBS(EV_OPRETRY) }
#if CLS == 3 || CLS == 4
  /* the statement that the effect did not happen: refused unless it is true (the operator checked) */
  /* and, inside the requeue's own condition, unless the worker's timeout has passed since the row's last claim
     (claimedAt <= now - workerMaxRunMs: !runOpen): no holder can still be running then. Without that check a stale
     holder's call after the statement is a second attempt (model/check one d-statement-early) */
#ifdef MUT_STATEMENT_WHILE_HOLDER_RUNS
  :: atomic { ops > 0 && (st == UNKNOWN || st == FAILED_TERMINAL) && mark && ((CLS == 4 && effD == 0) || (CLS == 3 && effC == 0)) ->
#else
  :: atomic { ops > 0 && !runOpen && (st == UNKNOWN || st == FAILED_TERMINAL) && mark && ((CLS == 4 && effD == 0) || (CLS == 3 && effC == 0)) ->
#endif
       PRE; ops--; fence++; ISSUE(fence); st = QUEUED; attempts = 0; mark = 0; may = 0; dCalls = 0;
       if :: msgs < MAXMSG -> msgs++ :: else -> skip fi;
       INV; OBS(EV_STATEMENT) }
#else
  /* the same statement on a class A or B job: the admin API takes it (an operator's bulk retry sends it for a mixed
     set) and it clears the mark, which nothing of these classes reads: their effects are fenced, not gated by the
     mark. Modelled without its time guard and without requiring it to be true (a superset of what the code does):
     every property of classes A and B holds even after a false statement made while a holder still runs */
  :: atomic { ops > 0 && (st == UNKNOWN || st == FAILED_TERMINAL) && mark ->
       PRE; ops--; fence++; ISSUE(fence); st = QUEUED; attempts = 0; mark = 0;
       if :: msgs < MAXMSG -> msgs++ :: else -> skip fi;
       INV; OBS(EV_STATEMENT) }
#endif
  /* resolve unknown ▶ succeeded (after a reconciliation that found the effect) | failed_terminal */
  :: atomic { ops > 0 && st == UNKNOWN ->
       PRE; ops--; fence++; ISSUE(fence);
       if
       :: (CLS == 1 && stepF != 0) || (CLS == 2 && recMax != 0) || (CLS == 3 && effC == 1) || (CLS == 4 && effD == 1) ->
         st = SUCCEEDED; outcome = 1; resolved = 1
       :: st = FAILED_TERMINAL
       fi;
       INV; OBS(EV_RESOLVE) }
#ifdef APPROVAL
  /* approve: ONE conditional write on the state and the hash the approver saw (hash 2: another payload) */
  :: atomic { ops > 0 && st == AWAIT ->
       ops--;
       if
       :: approvedHash = 1
       :: approvedHash = 2
       fi;
#ifdef MUT_APPROVE_BY_IDENTITY
       if :: true ->
#else
       if :: rowHash == approvedHash ->
#endif
         PRE; st = QUEUED; if :: msgs < MAXMSG -> msgs++ :: else -> skip fi; OBS(EV_APPROVE)
       :: else -> approvedHash = 0 /* payload_hash_mismatch: nothing changed */
       fi;
       INV }
  :: atomic { ops > 0 && st == AWAIT -> PRE; ops--; fence++; ISSUE(fence); st = CANCELLED; INV; OBS(EV_REJECT) } /* reject */
#endif
#ifdef EPOCH
  /* a restore of the jobs table (and the record tables, to the same point), then raise-fences */
  :: atomic { !snapped -> snapped = 1; snapSt = st; snapFence = fence; snapAttempts = attempts; snapRec = recEpoch }
  :: atomic { snapped && !restored ->
       PRE; restored = 1; st = snapSt; fence = snapFence; attempts = snapAttempts; recEpoch = snapRec;
       expired = 1; ltok = 0; recMax = snapRec; /* the record's history restarts at the restore point */
       OBS(EV_RESTORE) }
  :: atomic { restored && !raising -> raising = 1; maxBefore = maxIssued; if :: recMax > maxBefore -> maxBefore = recMax :: else -> skip fi; epoch = 1 }
#ifndef MUT_RAISE_NO_WAIT
  :: atomic { raising && !raiseDone -> cache[0] = 1; cache[1] = 1; raiseDone = 1; /* waited cacheMs: every store reads the new epoch */
#else
  :: atomic { raising && !raiseDone -> raiseDone = 1;
#endif
#ifndef MUT_RAISE_NO_LIFT
       if :: st != NONE && fence < UNIT -> PRE; fence = UNIT; ISSUE(fence); OBS(EV_RAISE) :: else -> skip fi;
#endif
       INV }
  /* a store re-reads the epoch row when its cache is old */
  :: atomic { cache[0] != epoch -> cache[0] = epoch }
  :: atomic { cache[1] != epoch -> cache[1] = epoch }
#endif
  od
}

init {
  atomic {
    byte i;
    for (i : 0 .. NW - 1) { run Worker(i) }
  }
}

/* Liveness (checked with weak fairness, -a -f): every job ends succeeded, failed_terminal, cancelled, or parked unknown with a reason. */
ltl terminates { <> [] (st == SUCCEEDED || st == FAILED_TERMINAL || st == CANCELLED || st == UNKNOWN) }
