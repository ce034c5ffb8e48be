/*
 * The derived-metric expression grammar of libpcp 6.2.2 (6.2.2 to 6.2.x), restated as a
 * plain bison grammar: productions, precedences and error productions only,
 * no actions. It exists so that bison builds the same LALR(1) automaton as
 * libpcp's parser (and declares the tokens in libpcp's order so the
 * states are numbered alike, which makes the two easy to compare), because libpcp's syntax messages are chosen by which
 * error production its automaton reaches (see language.md §4.2). The rule
 * order matters: bison resolves reduce/reduce conflicts by it. Empty {} mark
 * where libpcp runs a mid-rule action, which adds an empty nonterminal.
 * What each rule means for messages lives in Go (rules.go), keyed by the
 * rule's text.
 */
%token UNDEF LEXERROR EOS PLUS MINUS STAR SLASH QUEST COLON LPAREN RPAREN
%token AVG COUNT DELTA MAX MIN SUM ANON RATE INSTANT
%token LT LEQ EQ GEQ GT NEQ AND OR
%token MKCONST META NOVALUE RESCALE DEFINED MATCHINST SCALAR
%token TYPE SEMANTICS UNITS ASSIGN COMMA
%token INTEGER DOUBLE NAME STRING INSTNAME PATTERN

%start defn

%left QUEST COLON
%left AND OR
%precedence NOT
%left LT LEQ EQ GEQ GT NEQ
%left PLUS MINUS
%left STAR SLASH

%%

defn	: expr EOS
	| expr PLUS error
	| expr STAR error
	| expr SLASH error
	| expr LPAREN error
	| expr RPAREN error
	| expr LT error
	| expr LEQ error
	| expr EQ error
	| expr GEQ error
	| expr GT error
	| expr NEQ error
	| expr AND error
	| expr OR error
	| PLUS error
	| STAR error
	| SLASH error
	| LPAREN error
	| RPAREN error
	| LT error
	| LEQ error
	| EQ error
	| GEQ error
	| GT error
	| NEQ error
	| AND error
	| OR error
	| QUEST error
	| COLON error
	;

expr	: LPAREN expr RPAREN
	| NAME INSTNAME
	| LPAREN expr RPAREN INSTNAME
	| num
	| NAME
	| func
	| expr PLUS expr
	| expr MINUS expr
	| expr STAR expr
	| expr SLASH expr
	| MINUS expr %prec MINUS
	| expr LT expr
	| expr LEQ expr
	| expr EQ expr
	| expr GEQ expr
	| expr GT expr
	| expr NEQ expr
	| expr QUEST expr COLON expr
	| expr QUEST novalue COLON expr
	| expr QUEST expr COLON novalue
	| expr QUEST novalue COLON novalue
	| expr AND expr
	| expr OR expr
	| NOT expr
	| NAME error
	| expr PLUS error
	| expr MINUS error
	| expr STAR error
	| expr SLASH error
	| MINUS error
	| expr LT error
	| expr LEQ error
	| expr EQ error
	| expr GEQ error
	| expr GT error
	| expr NEQ error
	| expr AND error
	| expr OR error
	| NOT error
	| expr QUEST error
	| expr QUEST expr COLON error
	;

novalue	: NOVALUE LPAREN RPAREN
	| NOVALUE LPAREN speclist RPAREN
	| NOVALUE LPAREN error
	;

regexpr	: opt_bang PATTERN
	;

opt_bang : NOT
	| %empty
	;

num	: INTEGER
	| DOUBLE
	| MKCONST LPAREN INTEGER COMMA {} speclist RPAREN
	| MKCONST LPAREN DOUBLE COMMA {} speclist RPAREN
	| MKCONST LPAREN INTEGER error
	;

speclist : speclist COMMA spec
	| spec
	;

spec	: TYPE ASSIGN specval
	| SEMANTICS ASSIGN specval
	| UNITS ASSIGN specval
	| META ASSIGN NAME
	;

specval	: STRING
	| NAME
	| INTEGER
	;

func	: ANON LPAREN NAME RPAREN
	| AVG LPAREN NAME RPAREN
	| COUNT LPAREN NAME RPAREN
	| DELTA LPAREN NAME RPAREN
	| MAX LPAREN NAME RPAREN
	| MIN LPAREN NAME RPAREN
	| SUM LPAREN NAME RPAREN
	| RATE LPAREN NAME RPAREN
	| INSTANT LPAREN NAME RPAREN
	| DEFINED LPAREN NAME RPAREN
	| RESCALE LPAREN expr COMMA STRING RPAREN
	| MATCHINST LPAREN regexpr COMMA expr RPAREN
	| SCALAR LPAREN expr RPAREN
	| ANON LPAREN error
	| AVG LPAREN error
	| COUNT LPAREN error
	| DELTA LPAREN error
	| MAX LPAREN error
	| MIN LPAREN error
	| SUM LPAREN error
	| RATE LPAREN error
	| INSTANT LPAREN error
	| RESCALE LPAREN error
	| RESCALE LPAREN expr COMMA error
	| MATCHINST LPAREN error
	| MATCHINST LPAREN regexpr error
	| MATCHINST LPAREN regexpr COMMA error
	| SCALAR LPAREN error
	;
